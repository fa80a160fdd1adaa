import { LosslessNumber, parse, stringify } from 'lossless-json';
import type { History } from './history';
import type { Random } from './random';

/**
 * A partner's HTTP client as a careful integrator writes one: every POST with an Idempotency-Key;
 * on 503, a 5xx, a timeout or a lost connection the same request with the same key again, to the
 * next API, after a jittered exponential backoff, up to a bound; any other answer is final. Bodies
 * go out with exact number tokens and come back parsed losslessly (every number as its digits).
 * Every request and every answer goes to the history: that log is what the checker believes.
 */

/** What one HTTP attempt came to. */
export type AttemptOutcome = 'answered' | '503' | 'server-error' | 'conn-error' | 'timeout';

export interface AttemptRecord {
  op: number;
  attempt: number;
  api: number;
  startedAt: number;
  endedAt: number;
  outcome: AttemptOutcome;
  status?: number;
}

/** A JSON body with every number as its decimal text. */
export type JsonBody = Record<string, unknown>;

export interface Answer {
  /** The final answer's status; 'gave-up' once the bound was reached without one. */
  status: number | 'gave-up';
  body: JsonBody | unknown[] | undefined;
  attempts: number;
}

export interface Request {
  /** The operation (the history's id) this request belongs to. */
  op: number;
  apiKey: string;
  method: 'GET' | 'POST';
  path: string;
  /** Numbers that must go out as JSON numbers are LosslessNumber (see exactNumber). */
  body?: JsonBody;
  idempotencyKey?: string;
  /** The API tried first; each retry goes to the next one. */
  firstApi: number;
  maxAttempts: number;
  /** Whether answers' bodies go to the history (a whole month of history does not). */
  logAnswerBody?: boolean;
}

/** One request's own timeout: above the API's 15 s answer deadline, so a slow answer is still an answer. */
const REQUEST_TIMEOUT_MS = 20_000;
const FIRST_BACKOFF_MS = 500;
const LONGEST_BACKOFF_MS = 8_000;

export function exactNumber(digits: string): LosslessNumber {
  return new LosslessNumber(digits);
}

export class PartnerClient {
  readonly attempts: AttemptRecord[] = [];
  /** Answers other than 2xx, 4xx and 503. */
  readonly unexpected: Array<{ op: number; status: number; path: string; body: string }> = [];
  /** Requests under way, per API. */
  readonly inFlight: number[];

  constructor(
    private readonly apiUrls: readonly string[],
    private readonly history: History,
  ) {
    this.inFlight = apiUrls.map(() => 0);
  }

  async send(request: Request, random: Random): Promise<Answer> {
    const text = request.body === undefined ? undefined : stringify(request.body);
    for (let attempt = 1; ; attempt += 1) {
      const api = (request.firstApi + attempt - 1) % this.apiUrls.length;
      const result = await this.attemptOnce(request, text, attempt, api);
      if (result.final) return { status: result.status!, body: result.body, attempts: attempt };
      if (attempt >= request.maxAttempts) return { status: 'gave-up', body: undefined, attempts: attempt };
      const backoff = Math.min(LONGEST_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (attempt - 1));
      await sleep(backoff * random.between(0.5, 1));
    }
  }

  private async attemptOnce(
    request: Request,
    text: string | undefined,
    attempt: number,
    api: number,
  ): Promise<{ final: boolean; status?: number; body?: JsonBody | unknown[] }> {
    const headers: Record<string, string> = { authorization: `Bearer ${request.apiKey}` };
    if (request.idempotencyKey) headers['idempotency-key'] = request.idempotencyKey;
    if (text !== undefined) headers['content-type'] = 'application/json';
    const startedAt = this.history.now();
    this.history.write('request', {
      op: request.op,
      attempt,
      api,
      method: request.method,
      path: request.path,
      key: request.idempotencyKey,
      body: text === undefined ? undefined : parseExact(text),
    });
    this.inFlight[api]! += 1;
    try {
      const response = await fetch(this.apiUrls[api] + request.path, {
        method: request.method,
        headers,
        body: text,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const answerText = await response.text();
      const body = parseExact(answerText);
      const status = response.status;
      const outcome: AttemptOutcome = status === 503 ? '503' : status >= 500 ? 'server-error' : 'answered';
      this.record({ op: request.op, attempt, api, startedAt, endedAt: this.history.now(), outcome, status });
      this.history.write('answer', {
        op: request.op,
        attempt,
        api,
        status,
        latencyMs: this.history.now() - startedAt,
        ...(request.logAnswerBody === false && status < 300 ? {} : { body }),
      });
      if (outcome === 'server-error') this.unexpected.push({ op: request.op, status, path: request.path, body: answerText.slice(0, 500) });
      return outcome === 'answered' ? { final: true, status, body } : { final: false };
    } catch (error) {
      const outcome: AttemptOutcome = isTimeout(error) ? 'timeout' : 'conn-error';
      this.record({ op: request.op, attempt, api, startedAt, endedAt: this.history.now(), outcome });
      this.history.write('answer', {
        op: request.op,
        attempt,
        api,
        outcome,
        error: errorText(error),
        latencyMs: this.history.now() - startedAt,
      });
      return { final: false };
    } finally {
      this.inFlight[api]! -= 1;
    }
  }

  private record(attempt: AttemptRecord): void {
    this.attempts.push(attempt);
  }
}

/** JSON with every number kept as its digits (a string), or undefined for a body that is not JSON. */
export function parseExact(text: string): JsonBody | unknown[] | undefined {
  try {
    const value = parse(text, undefined, (digits) => digits);
    return value !== null && typeof value === 'object' ? (value as JsonBody | unknown[]) : undefined;
  } catch {
    return undefined;
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? error.message;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
