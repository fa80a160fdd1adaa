import type { PartnerClient } from './client';
import { sleep } from './client';
import type { History } from './history';
import { ID_FIELD, planOperation } from './operations';
import type { PlannedOperation } from './operations';
import type { SimulatedPartner } from './partners';
import { Random } from './random';

/**
 * The open-loop load: operations arrive as a Poisson process at a fixed rate whatever the system
 * does (a slow or failing service does not slow the arrivals, as real partners do not wait for
 * each other), each sent by its partner's client with its retries (client.ts). An exchange first
 * fetches a rate lock, then sends it, the same body on every retry. A bound on operations under
 * way keeps a long outage from piling up without end: an arrival over it is recorded as shed.
 */

/** A POST's attempts during the run (half a minute of backoff at most, plus the timeouts), as a partner's SDK would. */
const MAX_ATTEMPTS = 6;
/** Attempts of the same request once the nemesis has stopped, for a key that got no final answer. */
const SETTLE_ATTEMPTS = 6;
/**
 * Keys sent again at once after the settle, as a client's reconciliation job works through its
 * list: all of them at once (hundreds after a long fault) would be a burst the admission control
 * refuses for longer than their attempts last.
 */
const SETTLE_CONCURRENCY = 8;
const MAX_IN_FLIGHT = 400;

export interface Lock {
  id: string;
  rates: Record<string, string>;
  feePercentage: string;
}

/** One operation: what the client sent and the final answer it got. */
export interface OperationLog extends PlannedOperation {
  startedAt: number;
  endedAt?: number;
  /** The final answer's status; 'gave-up' with no final answer; 'shed' when never sent. */
  status?: number | 'gave-up' | 'shed';
  operationId?: string;
  errorCode?: string;
  attempts: number;
  /** Exchange: the lock it used, as the API gave it. */
  lock?: Lock;
}

export interface LoadDependencies {
  client: PartnerClient;
  partners: readonly SimulatedPartner[];
  history: History;
  seed: number;
  ratePerSecond: number;
  /** Told about each operation answered 2xx (the operators' desk). */
  onAccepted(operation: OperationLog): void;
}

export class OpenLoopLoad {
  readonly operations: OperationLog[] = [];
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly deps: LoadDependencies) {}

  /** Sends arrivals for `durationMs` (or until stop()); resolves when the last has been sent off, not answered. */
  async run(durationMs: number): Promise<void> {
    const arrivals = Random.stream(this.deps.seed, 'arrivals');
    const begin = this.deps.history.now();
    let next = begin;
    while (!this.stopped) {
      next += arrivals.exponential(1000 / this.deps.ratePerSecond);
      if (next - begin >= durationMs) break;
      const wait = next - this.deps.history.now();
      if (wait > 0) await sleep(wait);
      if (this.stopped) break;
      this.launch(this.operations.length + 1);
    }
  }

  stop(): void {
    this.stopped = true;
  }

  /** Waits until every operation sent has its final answer or gave up. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** After the settle: the keys that never got a final answer are sent again, as a client's reconciliation would. */
  async retryUnanswered(): Promise<number> {
    const unanswered = this.operations.filter((operation) => operation.status === 'gave-up');
    const queue = [...unanswered];
    const sender = async () => {
      for (let operation = queue.shift(); operation; operation = queue.shift()) await this.perform(operation, SETTLE_ATTEMPTS, true);
    };
    await Promise.all(Array.from({ length: SETTLE_CONCURRENCY }, sender));
    return unanswered.length;
  }

  accepted(): OperationLog[] {
    return this.operations.filter((operation) => typeof operation.status === 'number' && operation.status < 300 && operation.operationId);
  }

  private launch(op: number): void {
    const random = Random.stream(this.deps.seed, `op-${op}`);
    const partner = random.pick(this.deps.partners);
    const operation: OperationLog = { ...planOperation(op, partner, random), startedAt: this.deps.history.now(), attempts: 0 };
    this.operations.push(operation);
    if (this.running.size >= MAX_IN_FLIGHT) {
      operation.status = 'shed';
      this.deps.history.write('shed', { op, kind: operation.kind, inFlight: this.running.size });
      return;
    }
    this.deps.history.write('operation', { op, kind: operation.kind, partner: operation.partner, key: operation.key });
    const running = this.perform(operation, MAX_ATTEMPTS, false).finally(() => this.running.delete(running));
    this.running.add(running);
  }

  private async perform(operation: OperationLog, maxAttempts: number, afterSettle: boolean): Promise<void> {
    const random = Random.stream(this.deps.seed, `op-${operation.op}-sending${afterSettle ? '-settle' : ''}`);
    const partner = this.deps.partners[operation.partner]!;
    const firstApi = operation.op % 2;
    if (operation.kind === 'exchange' && !operation.lock) {
      const answer = await this.deps.client.send(
        { op: operation.op, apiKey: partner.apiKey, method: 'GET', path: '/v1/partner/get-lock', firstApi, maxAttempts },
        random,
      );
      operation.attempts += answer.attempts;
      const body = answer.body && !Array.isArray(answer.body) ? answer.body : undefined;
      if (answer.status !== 200 || !body) {
        // No lock, no exchange: nothing was sent that could move money.
        this.finish(operation, answer.status, body);
        return;
      }
      operation.lock = { id: String(body.id), rates: body.rates as Record<string, string>, feePercentage: String(body.feePercentage) };
      operation.body = { ...operation.body, lockId: operation.lock.id };
    }
    const answer = await this.deps.client.send(
      {
        op: operation.op,
        apiKey: partner.apiKey,
        method: 'POST',
        path: operation.path,
        body: operation.body,
        idempotencyKey: operation.key,
        firstApi,
        maxAttempts,
      },
      random,
    );
    operation.attempts += answer.attempts;
    this.finish(operation, answer.status, answer.body && !Array.isArray(answer.body) ? answer.body : undefined);
  }

  private finish(operation: OperationLog, status: number | 'gave-up', body: Record<string, unknown> | undefined): void {
    operation.status = status;
    operation.endedAt = this.deps.history.now();
    const id = body?.[ID_FIELD[operation.kind]];
    if (typeof status === 'number' && status < 300 && typeof id === 'string') operation.operationId = id;
    if (typeof body?.errorCode === 'string') operation.errorCode = body.errorCode;
    this.deps.history.write('outcome', {
      op: operation.op,
      kind: operation.kind,
      status,
      attempts: operation.attempts,
      ...(operation.operationId ? { operationId: operation.operationId } : {}),
      ...(operation.errorCode ? { errorCode: operation.errorCode } : {}),
    });
    if (operation.operationId) this.deps.onAccepted(operation);
  }
}
