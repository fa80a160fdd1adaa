import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { WebhookEvent } from '../../core/webhook-event';
import { runOpsCli } from './ops-cli';

/** One request the receiver got, with what the Standard Webhooks check said of it. */
export interface ReceivedWebhook {
  webhookId: string;
  webhookTimestamp: string;
  body: string;
  event: WebhookEvent;
  /** `new Webhook(secret).verify(body, headers)` passed. */
  verified: boolean;
  verifyError?: string;
  /** The status the receiver answered; 0 when it hangs. */
  answeredStatus: number;
  /** The Host header: the URL's host, whatever address the connection went to. */
  hostHeader: string;
}

export interface WebhookReceiver {
  /** http://127.0.0.1:PORT/hooks (or the address it listens on): plain HTTP is accepted for loopback addresses only. */
  readonly url: string;
  readonly port: number;
  /** Every request, in arrival order. */
  readonly received: ReceivedWebhook[];
  /** Set once `webhook set` printed it; requests before that fail verification. */
  secret: string | undefined;
  stop(): Promise<void>;
}

/** Bodies of our events are small; anything larger is a bug worth seeing. */
const MAX_BODY_BYTES = 64 * 1024;

/**
 * A real HTTP endpoint on 127.0.0.1 (a free port; `host` another loopback address) that verifies
 * every signature the way a partner would. `answer(attempt)` picks the status for the n-th
 * request (1-based) of one webhook-id: 200 unless told otherwise; `delayMs` holds each answer
 * back (a slow receiver); `hang` never answers (an endpoint that accepts and then says nothing).
 */
export async function startWebhookReceiver(
  options: { answer?: (attempt: number) => number; delayMs?: number; hang?: boolean; host?: string } = {},
): Promise<WebhookReceiver> {
  const host = options.host ?? '127.0.0.1';
  const received: ReceivedWebhook[] = [];
  const attemptsById = new Map<string, number>();
  const state = { secret: undefined as string | undefined };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
      );
      const webhookId = headers['webhook-id'] ?? '';
      const attempt = (attemptsById.get(webhookId) ?? 0) + 1;
      attemptsById.set(webhookId, attempt);
      const status = options.answer?.(attempt) ?? 200;
      let verified = false;
      let verifyError: string | undefined;
      try {
        if (!state.secret) throw new Error('no secret yet');
        new Webhook(state.secret).verify(body, headers);
        verified = true;
      } catch (error) {
        verifyError = error instanceof Error ? error.message : String(error);
      }
      received.push({
        webhookId,
        webhookTimestamp: headers['webhook-timestamp'] ?? '',
        body,
        event: parsed(body),
        verified,
        ...(verifyError === undefined ? {} : { verifyError }),
        answeredStatus: options.hang ? 0 : status,
        hostHeader: request.headers.host ?? '',
      });
      if (options.hang) return;
      const answer = () => response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'not now');
      if (options.delayMs) setTimeout(answer, options.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/hooks`,
    port,
    received,
    get secret() {
      return state.secret;
    },
    set secret(value) {
      state.secret = value;
    },
    async stop() {
      // The dispatcher keeps connections alive: close them, or close() waits for them.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/** A body that is not JSON shows up in the assertions, not as a crash of the receiver. */
function parsed(body: string): WebhookEvent {
  try {
    return JSON.parse(body) as WebhookEvent;
  } catch {
    return { id: '', type: 'exchange.status_changed', timestamp: '', data: { id: `not JSON: ${body.slice(0, 100)}` } } as WebhookEvent;
  }
}

/** Registers the receiver as the partner's endpoint (`webhook set`), and gives it the secret printed once. */
export async function registerWebhookReceiver(partnerId: string, receiver: WebhookReceiver): Promise<void> {
  const set = await runOpsCli(['webhook', 'set', '--partner', partnerId, '--url', receiver.url]);
  if (set.code !== 0) throw new Error(`webhook set failed: ${JSON.stringify(set.output)}`);
  receiver.secret = set.output.secret;
}

/** A receiver started, registered as the partner's endpoint, and stopped with the test file's other cleanups. */
export async function startRegisteredWebhookReceiver(
  partnerId: string,
  cleanups: { defer(cleanup: () => unknown): void },
): Promise<WebhookReceiver> {
  const receiver = await startWebhookReceiver();
  cleanups.defer(() => receiver.stop());
  await registerWebhookReceiver(partnerId, receiver);
  return receiver;
}
