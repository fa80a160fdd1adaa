import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';
import { isDepositWebhookEvent, isWithdrawalAddressEvent } from '../core/webhook-event';
import type { DepositWebhookEventData, OperationEventData, WebhookEvent, WithdrawalAddressEventData } from '../core/webhook-event';
import { checkWebhookTarget } from '../core/webhook-target';
import type { CheckedTarget, HostResolver, WebhookTargetPolicy } from '../core/webhook-target';

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

/** The body in a fixed key order (jsonb orders keys its own way), so every attempt sends the same bytes. */
export function webhookEventBody(event: WebhookEvent): string {
  return JSON.stringify({ id: event.id, type: event.type, timestamp: event.timestamp, data: dataInOrder(event) });
}

/** Each family's fields in one fixed order, so every attempt signs the same bytes. */
function dataInOrder(event: WebhookEvent): OperationEventData | DepositWebhookEventData | WithdrawalAddressEventData {
  if (isDepositWebhookEvent(event)) return depositData(event.data);
  if (isWithdrawalAddressEvent(event)) return withdrawalAddressData(event.data);
  return operationData(event.data);
}

function depositData(data: DepositWebhookEventData): DepositWebhookEventData {
  return {
    id: data.id,
    ...(data.type === undefined ? {} : { type: data.type }),
    status: data.status,
    stage: data.stage,
    failureReason: data.failureReason ?? null,
    sequence: data.sequence,
    network: data.network ?? null,
    currency: data.currency,
    amount: data.amount,
    transactionHash: data.transactionHash ?? null,
  };
}

function operationData(data: OperationEventData): OperationEventData {
  return {
    id: data.id,
    ...(data.userId === undefined || data.userId === null ? {} : { userId: data.userId }),
    status: data.status,
    stage: data.stage,
    failureReason: data.failureReason ?? null,
    sequence: data.sequence,
  };
}

function withdrawalAddressData(data: WithdrawalAddressEventData): WithdrawalAddressEventData {
  return {
    id: data.id,
    currency: data.currency,
    network: data.network,
    address: data.address,
    label: data.label,
    status: data.status,
    activeFrom: data.activeFrom,
    createdAt: data.createdAt,
  };
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

/** Where a POST may go (core/webhook-target.ts), and how names are resolved. */
export interface WebhookTargets {
  policy: WebhookTargetPolicy;
  resolve: HostResolver;
}

/** Kept-alive connections, each opened to a checked address and reused only after the request's own check passed. */
const AGENTS = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) } as const;

/**
 * POSTs once, connecting only to the addresses checked for the host (core/webhook-target.ts), so DNS rebinding is never
 * used; a refused target is never connected to (no error telling what listens there). At most `timeoutMs`, lookup included;
 * redirects not followed (a 3xx is a failure). Never throws: every outcome is something to record.
 */
export async function postWebhook(
  url: string,
  request: SignedWebhookRequest,
  options: { timeoutMs: number; stop: AbortSignal; targets: WebhookTargets },
): Promise<WebhookPostOutcome> {
  const startedMs = performance.now();
  const elapsedMs = () => Math.round(performance.now() - startedMs);
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([timeout, options.stop]);
  const failed = (error: unknown): WebhookPostOutcome => {
    const interrupted = options.stop.aborted && !timeout.aborted;
    const reason = timeout.aborted
      ? `no answer within ${options.timeoutMs} ms`
      : interrupted
        ? 'interrupted: the dispatcher stopped'
        : describe(error);
    return { httpStatus: null, error: reason.slice(0, MAX_ERROR_LENGTH), durationMs: elapsedMs(), interrupted };
  };
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return failed(new Error('the registered URL cannot be parsed'));
  }
  const policy = { ...options.targets.policy, ownAddresses: machineAddresses() };
  const checked = await checkWebhookTarget(target, policy, options.targets.resolve, signal);
  if ('problem' in checked) {
    if (signal.aborted) return failed(new Error('aborted'));
    return failed(
      new Error(checked.problem === 'refused' ? `the target address is not allowed: ${checked.message}; not connected` : checked.message),
    );
  }
  try {
    const status = await post(target, checked, request, signal);
    const delivered = status >= 200 && status < 300;
    const redirected = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
    return { httpStatus: status, error: delivered ? null : `HTTP ${status}${redirected}`, durationMs: elapsedMs(), interrupted: false };
  } catch (error) {
    return failed(error);
  }
}

/** The request itself, to the checked addresses only; resolves with the answer's status. */
function post(url: URL, target: CheckedTarget, request: SignedWebhookRequest, signal: AbortSignal): Promise<number> {
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<number>((resolve, reject) => {
    const outgoing = transport.request(
      url,
      {
        method: 'POST',
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
        agent: url.protocol === 'https:' ? AGENTS['https:'] : AGENTS['http:'],
        // The host name stays the request's (Host header, TLS server name and certificate check);
        // only where to connect comes from the check.
        lookup: checkedAddressesOnly(target),
        signal,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          // The status is all we wanted: a long body is cut short.
          if (read >= RESPONSE_BYTES_READ) response.destroy();
        });
        response.on('end', () => resolve(status));
        response.on('close', () => resolve(status));
        response.on('error', () => resolve(status));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

/** This machine's addresses besides loopback (WEBHOOK_ALLOW_LOOPBACK governs that), read at each delivery: interfaces come and go. */
function machineAddresses(): string[] {
  return Object.values(os.networkInterfaces()).flatMap((entries) =>
    (entries ?? []).filter((entry) => !entry.internal).map((entry) => entry.address),
  );
}

/** A lookup that answers with the checked addresses and never asks DNS again. */
function checkedAddressesOnly(target: CheckedTarget): LookupFunction {
  return (hostname, options, callback) => {
    const family =
      options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : undefined;
    const usable = target.addresses.filter((address) => family === undefined || address.family === family);
    const first = usable[0];
    if (hostname.replace(/\.$/, '') !== target.hostname || first === undefined) {
      callback(Object.assign(new Error(`no checked address for ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
      return;
    }
    if (options.all)
      callback(
        null,
        usable.map(({ address, family: addressFamily }) => ({ address, family: addressFamily })),
      );
    else callback(null, first.address, first.family);
  };
}

/** Node names the reason in a code (ECONNREFUSED, a TLS error, …) besides its message. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const text = typeof code === 'string' && code.length > 0 && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  // Only printable characters reach the log: a hostile endpoint controls part of some messages.
  return text.replace(/\p{Cc}/gu, ' ');
}
