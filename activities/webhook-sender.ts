import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';
import type { WebhookEvent } from '../core/webhook-event';

/** One POST to a partner's endpoint, as it will be sent. */
export interface SignedWebhookRequest {
  body: string;
  headers: Record<string, string>;
}

/** What one POST came to: an answer (2xx means delivered), or no answer and why. */
export interface WebhookPostOutcome {
  httpStatus: number | null;
  /** Null when delivered; otherwise at most MAX_ERROR_LENGTH characters. */
  error: string | null;
  durationMs: number;
  /** Our own stop (a worker shutting down) cut it short: not the endpoint's failure. */
  interrupted: boolean;
}

/** The most of an answer's body read (and thrown away): receivers are asked for a status, nothing else. */
const RESPONSE_BYTES_READ = 4096;
const MAX_ERROR_LENGTH = 500;

/**
 * The body in a fixed key order (the outbox keeps it as jsonb, which orders keys its own way), so
 * every attempt sends the same bytes.
 */
export function webhookEventBody(event: WebhookEvent): string {
  const { data } = event;
  return JSON.stringify({
    id: event.id,
    type: event.type,
    timestamp: event.timestamp,
    data: {
      id: data.id,
      ...(data.userId === undefined || data.userId === null ? {} : { userId: data.userId }),
      status: data.status,
      stage: data.stage,
      failureReason: data.failureReason ?? null,
      sequence: data.sequence,
    },
  });
}

/**
 * Signed by the Standard Webhooks scheme: `webhook-id` is the event id (the same on every
 * attempt, so receivers can drop duplicates), `webhook-timestamp` the time of this attempt.
 */
export function signWebhookRequest(event: WebhookEvent, secret: string, attemptedAt: Date): SignedWebhookRequest {
  const body = webhookEventBody(event);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'partner-payments-webhooks/1',
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(attemptedAt.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(event.id, attemptedAt, body),
    },
  };
}

/**
 * POSTs once: at most `timeoutMs` in all, redirects not followed (a 3xx is a failure: the
 * registered URL is the one that gets events), the answer's body read up to a few KB and ignored.
 * Never throws: every outcome is something to record.
 */
export async function postWebhook(
  url: string,
  request: SignedWebhookRequest,
  options: { timeoutMs: number; stop: AbortSignal },
): Promise<WebhookPostOutcome> {
  const startedMs = performance.now();
  const elapsedMs = () => Math.round(performance.now() - startedMs);
  const timeout = AbortSignal.timeout(options.timeoutMs);
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.any([timeout, options.stop]),
    });
    await discardBody(response);
    const delivered = response.status >= 200 && response.status < 300;
    const redirected = response.status >= 300 && response.status < 400 ? ' (redirects are not followed)' : '';
    return {
      httpStatus: response.status,
      error: delivered ? null : `HTTP ${response.status}${redirected}`,
      durationMs: elapsedMs(),
      interrupted: false,
    };
  } catch (error) {
    const interrupted = options.stop.aborted && !timeout.aborted;
    const reason = timeout.aborted
      ? `no answer within ${options.timeoutMs} ms`
      : interrupted
        ? 'interrupted: the dispatcher stopped'
        : describe(error);
    return { httpStatus: null, error: reason.slice(0, MAX_ERROR_LENGTH), durationMs: elapsedMs(), interrupted };
  }
}

async function discardBody(response: Response): Promise<void> {
  const reader = response.body?.getReader();
  if (!reader) return;
  try {
    for (let read = 0; read < RESPONSE_BYTES_READ;) {
      const chunk = await reader.read();
      if (chunk.done) return;
      read += (chunk.value as Uint8Array).byteLength;
    }
  } catch {
    // The status is all we wanted; a body cut short changes nothing.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** fetch says "fetch failed" and puts the reason (ECONNREFUSED, a TLS error, …) in its cause. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  const detail = [cause?.code, cause?.message].filter((part) => typeof part === 'string' && part.length > 0).join(': ');
  // Only printable characters reach the log: a hostile endpoint controls part of some messages.
  return (detail ? `${error.message}: ${detail}` : error.message).replace(/\p{Cc}/gu, ' ');
}
