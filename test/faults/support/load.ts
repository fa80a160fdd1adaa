import { randomBytes, randomUUID } from 'node:crypto';
import { regtestSegwitAddress } from '../../support/utxo-payments';
import { getAddress, toHex } from 'viem';
import { naturalSepaTransferBody } from '../../support/sepa-payment.fixture';

/**
 * The campaign's load: K callers, each sending one operation after another (crypto withdrawals,
 * SEPA transfers, exchanges with a rate lock; deposits come beside them: deposit-load.ts), spread round-robin over the API processes. Every
 * POST carries an Idempotency-Key; on 503, a connection error or a timeout the caller sends the
 * same request with the same key again, to the next API (so a dead API's callers move to the
 * other one), until it gets any other answer or its retry budget runs out. Every answer is
 * counted by status; connection errors and timeouts are counted apart, as they are not answers.
 */

export type OperationKind = 'crypto-withdrawal' | 'sepa-transfer' | 'exchange';

export const ALL_KINDS: readonly OperationKind[] = ['crypto-withdrawal', 'sepa-transfer', 'exchange'];

/** One operation as a caller saw it, from its first POST to its last. */
export interface OperationRecord {
  kind: OperationKind;
  key: string;
  caller: number;
  startedAt: number;
  endedAt: number;
  /** The final answer's status, or 'gave-up' after the retry budget. */
  status: number | 'gave-up';
  errorCode?: string;
  /** withdrawalId, transferId or exchangeId of a 2xx. */
  operationId?: string;
  /** The API process (index) that gave the final answer. */
  servedBy?: number;
  /** POSTs sent for this key. */
  attempts: number;
}

/** Counts per label: an HTTP status ("503"), or "conn-error" / "timeout". */
export class StatusCounts {
  readonly counts = new Map<string, number>();

  add(label: string, count = 1): void {
    this.counts.set(label, (this.counts.get(label) ?? 0) + count);
  }

  merge(other: StatusCounts): void {
    for (const [label, count] of other.counts) this.add(label, count);
  }

  /** Answers that are neither 2xx, 4xx nor 503 (a 500, a 502, …). */
  unexpected(): number {
    let total = 0;
    for (const [label, count] of this.counts) if (/^\d+$/.test(label) && Number(label) >= 500 && label !== '503') total += count;
    return total;
  }

  toString(): string {
    const order = (label: string) => (/^\d+$/.test(label) ? Number(label) : 1000);
    return [...this.counts.entries()]
      .sort(([a], [b]) => order(a) - order(b) || a.localeCompare(b))
      .map(([label, count]) => `${label}:${count}`)
      .join(' ');
  }
}

export interface LoadOptions {
  apiUrls: readonly string[];
  apiKey: string;
  callers: number;
  /** The kinds caller i sends, in turn (caller i starts at kind i). */
  kinds?: readonly OperationKind[];
  /** Per caller: the kinds it sends (overrides `kinds`). */
  kindsOfCaller?: (caller: number) => readonly OperationKind[];
  /** Wait between one operation's end and the next one's start. */
  pauseMs?: number;
  /** How long one key is retried before the caller gives up on it. */
  retryBudgetMs?: number;
  /** One HTTP request's timeout (above the API's own 15 s answer deadline). */
  requestTimeoutMs?: number;
  /** Idempotency-Key prefix, to find a phase's keys in logs. */
  label: string;
}

interface Answer {
  status: number | 'gave-up';
  json?: Record<string, unknown>;
  apiIndex?: number;
  attempts: number;
}

const RETRY_DELAY_MS = 300;
/** One currency per network of WITHDRAWAL_NETWORKS (support/fault-points.ts), in its order. */
const WITHDRAWAL_CURRENCIES = ['btc', 'pol', 'ltc'] as const;

/** A withdrawal's currency, amount and fresh destination. */
function withdrawalTo(currency: (typeof WITHDRAWAL_CURRENCIES)[number]): { currency: string; amount: string; walletAddress: string } {
  const hash = randomBytes(20);
  switch (currency) {
    case 'btc':
      return { currency, amount: '0.001', walletAddress: regtestSegwitAddress('bitcoin', hash) };
    case 'ltc':
      return { currency, amount: '0.01', walletAddress: regtestSegwitAddress('litecoin', hash) };
    case 'pol':
      return { currency, amount: '1', walletAddress: getAddress(toHex(hash)) };
  }
}

export class LoadGenerator {
  readonly records: OperationRecord[] = [];
  readonly statuses = new StatusCounts();
  /** Answers other than 2xx, 4xx and 503, with their bodies. */
  readonly unexpectedAnswers: Array<{ status: number; path: string; body: string; api: number }> = [];
  /** Requests under way, per API process. */
  readonly inFlight: number[];
  private stopping = false;
  private withdrawals = 0;
  private callers: Promise<void>[] = [];

  constructor(private readonly options: LoadOptions) {
    this.inFlight = options.apiUrls.map(() => 0);
  }

  start(): void {
    this.callers = Array.from({ length: this.options.callers }, (_, caller) => this.runCaller(caller));
  }

  /** Stops starting operations and waits until every caller's current one has its final answer. */
  async stop(): Promise<OperationRecord[]> {
    this.stopping = true;
    await Promise.all(this.callers);
    return this.records;
  }

  accepted(): OperationRecord[] {
    return this.records.filter((record) => typeof record.status === 'number' && record.status < 300 && record.operationId);
  }

  private async runCaller(caller: number): Promise<void> {
    const kinds = this.options.kindsOfCaller?.(caller) ?? this.options.kinds ?? ALL_KINDS;
    for (let turn = 0; !this.stopping; turn += 1) {
      await this.perform(caller, kinds[(caller + turn) % kinds.length]!);
      if (this.options.pauseMs) await sleep(this.options.pauseMs);
    }
  }

  private async perform(caller: number, kind: OperationKind): Promise<void> {
    const startedAt = Date.now();
    const key = `${this.options.label}-${kind}-${randomUUID()}`;
    const deadline = startedAt + (this.options.retryBudgetMs ?? 120_000);
    let path: string;
    let body: Record<string, unknown>;
    switch (kind) {
      case 'crypto-withdrawal':
        path = '/v1/partner/crypto-withdrawal';
        // btc, pol and ltc in turn, on the real nodes of the chains the spec added (not on ethereum, where the campaign makes
        // reorganisations, for deposits), to a fresh address each: what the chain shows paid to it is this withdrawal's
        // (support/verify.ts).
        this.withdrawals += 1;
        body = {
          ...withdrawalTo(WITHDRAWAL_CURRENCIES[this.withdrawals % WITHDRAWAL_CURRENCIES.length]!),
          name: 'Jan Kowalski',
          walletType: 'CUSTODIAL',
          receiverType: 'NATURAL',
        };
        break;
      case 'sepa-transfer':
        path = '/v1/partner/sepa-transfer';
        body = naturalSepaTransferBody({ amount: '12.50' });
        break;
      case 'exchange': {
        // A lock of its own; GET is safe to repeat.
        const lock = await this.send(caller, 'GET', '/v1/partner/get-lock', undefined, undefined, deadline);
        if (lock.status !== 200) {
          this.records.push({ kind, key, caller, startedAt, endedAt: Date.now(), status: lock.status, attempts: 0 });
          return;
        }
        path = '/v1/partner/exchange';
        body = { amount: 10, currencyFrom: 'eur', currencyTo: 'btc', lockId: lock.json?.id };
        break;
      }
    }
    const answer = await this.send(caller, 'POST', path, body, key, deadline);
    const idField = { 'crypto-withdrawal': 'withdrawalId', 'sepa-transfer': 'transferId', exchange: 'exchangeId' }[kind];
    const id = answer.json?.[idField];
    const errorCode = answer.json?.errorCode;
    this.records.push({
      kind,
      key,
      caller,
      startedAt,
      endedAt: Date.now(),
      status: answer.status,
      attempts: answer.attempts,
      ...(typeof id === 'string' ? { operationId: id } : {}),
      ...(typeof errorCode === 'string' ? { errorCode } : {}),
      ...(answer.apiIndex !== undefined ? { servedBy: answer.apiIndex } : {}),
    });
  }

  /** One request until it has an answer other than 503, or the budget is spent; the next API on every retry. */
  private async send(
    caller: number,
    method: string,
    path: string,
    body: Record<string, unknown> | undefined,
    key: string | undefined,
    deadline: number,
  ): Promise<Answer> {
    const { apiUrls } = this.options;
    for (let attempt = 0; ; attempt += 1) {
      const apiIndex = (caller + attempt) % apiUrls.length;
      const headers: Record<string, string> = { authorization: `Bearer ${this.options.apiKey}` };
      if (key) headers['idempotency-key'] = key;
      if (body) headers['content-type'] = 'application/json';
      this.inFlight[apiIndex]! += 1;
      try {
        const response = await fetch(apiUrls[apiIndex] + path, {
          method,
          headers,
          body: body ? JSON.stringify(body) : undefined,
          signal: AbortSignal.timeout(this.options.requestTimeoutMs ?? 25_000),
        });
        const text = await response.text();
        this.statuses.add(String(response.status));
        if (response.status >= 500 && response.status !== 503) {
          this.unexpectedAnswers.push({ status: response.status, path, body: text.slice(0, 500), api: apiIndex });
        }
        if (response.status !== 503) return { status: response.status, json: parseJson(text), apiIndex, attempts: attempt + 1 };
      } catch (error) {
        this.statuses.add(isTimeout(error) ? 'timeout' : 'conn-error');
      } finally {
        this.inFlight[apiIndex]! -= 1;
      }
      if (Date.now() >= deadline) return { status: 'gave-up', attempts: attempt + 1 };
      await sleep(RETRY_DELAY_MS);
    }
  }
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
