import { Client, Connection } from '@temporalio/client';
import { cryptoWithdrawalContract, sepaTransferContract } from '../../../contracts';
import type { FaultStack } from '../../faults/support/harness';
import { runTsx } from '../../support/processes';
import { sleep } from './client';
import type { History } from './history';
import type { OperationLog } from './load';
import { isWithdrawal } from './operations';
import { Random } from './random';

/**
 * The operators' desk. For a withdrawal waiting for travel-rule data an operator, some seconds
 * later, completes the data with `npm run ops -- travel-rule complete` (the CLI writes its audit
 * row, then sends the Update), or cancels the withdrawal as the Web UI does (a cancellation
 * request to its workflow), or leaves it to its deadline. A few other withdrawals and SEPA
 * transfers are cancelled moments after they were accepted, before or after their hand-off. Each
 * action is retried a few times when Temporal or Postgres cannot be reached, as a person would,
 * and logged with its answer. Operators reach Postgres and Temporal directly, not through the
 * proxies of the APIs and workers.
 */

export type OperatorAction = 'complete-travel-rule' | 'cancel';

export interface OperatorRecord {
  op: number;
  operationId: string;
  action: OperatorAction;
  /** 'done' once an attempt succeeded; else the last failure. */
  result: string;
  at: number;
}

const ATTEMPTS = 5;
/** Operator actions at once (people at the desk). */
const DESK_SIZE = 2;

export class OperatorDesk {
  readonly records: OperatorRecord[] = [];
  private readonly pending = new Set<Promise<void>>();
  private working = 0;
  private readonly queue: Array<() => Promise<void>> = [];
  private connection: Connection | undefined;

  constructor(
    private readonly stack: FaultStack,
    private readonly history: History,
    private readonly seed: number,
  ) {}

  /** Decides, from the operation's own stream, what an operator does with it, if anything. */
  onAccepted(operation: OperationLog): void {
    const random = Random.stream(this.seed, `operator-${operation.op}`);
    let action: OperatorAction | undefined;
    let delayMs = 0;
    if (operation.travelRuleWait) {
      const choice = random.weighted({ complete: 60, cancel: 25, leave: 15 });
      action = choice === 'complete' ? 'complete-travel-rule' : choice === 'cancel' ? 'cancel' : undefined;
      delayMs = random.int(5_000, 30_000);
    } else if ((isWithdrawal(operation.kind) && random.chance(0.02)) || (operation.kind === 'sepa-transfer' && random.chance(0.03))) {
      action = 'cancel';
      delayMs = random.int(0, 2_000);
    }
    if (!action) return;
    const chosen = action;
    this.history.write('operator-plan', { op: operation.op, operationId: operation.operationId, action: chosen, delayMs });
    const task = sleep(delayMs)
      .then(() => this.enqueue(() => this.act(operation, chosen)))
      .finally(() => this.pending.delete(task));
    this.pending.add(task);
  }

  /** Waits for every planned action to be done or given up. */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  async close(): Promise<void> {
    await this.connection?.close().catch(() => undefined);
  }

  private enqueue(work: () => Promise<void>): Promise<void> {
    return new Promise((resolve) => {
      const run = async () => {
        this.working += 1;
        try {
          await work();
        } finally {
          this.working -= 1;
          resolve();
          void this.queue.shift()?.();
        }
      };
      if (this.working < DESK_SIZE) void run();
      else this.queue.push(run);
    });
  }

  private async act(operation: OperationLog, action: OperatorAction): Promise<void> {
    const operationId = operation.operationId!;
    let result = 'not tried';
    for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
      this.history.write('operator-request', { op: operation.op, operationId, action, attempt });
      const outcome = action === 'cancel' ? await this.cancel(operation) : await this.completeTravelRule(operationId);
      this.history.write('operator-answer', { op: operation.op, operationId, action, attempt, ...outcome });
      result = outcome.result;
      if (!outcome.retry) break;
      await sleep(2_000 * attempt);
    }
    this.records.push({ op: operation.op, operationId, action, result, at: this.history.now() });
  }

  /** What the Web UI's "Request cancellation" sends. */
  private async cancel(operation: OperationLog): Promise<{ result: string; retry: boolean }> {
    const workflowId = isWithdrawal(operation.kind)
      ? cryptoWithdrawalContract.workflowId(operation.operationId!)
      : sepaTransferContract.workflowId(operation.operationId!);
    try {
      this.connection ??= await Connection.connect({ address: this.stack.temporalAddress, connectTimeout: 5_000 });
      const client = new Client({ connection: this.connection, namespace: 'default' });
      await this.connection.withDeadline(Date.now() + 10_000, () => client.workflow.getHandle(workflowId).cancel());
      return { result: 'done', retry: false };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // A workflow that already finished cannot be cancelled: the operator was late, nothing to retry.
      if (/not found|already completed|workflow execution already completed/i.test(message))
        return { result: `late: ${message}`, retry: false };
      await this.connection?.close().catch(() => undefined);
      this.connection = undefined;
      return { result: `failed: ${message}`, retry: true };
    }
  }

  private async completeTravelRule(withdrawalId: string): Promise<{ result: string; retry: boolean }> {
    const run = await runTsx(
      this.stack.dir,
      'main/ops.cli.ts',
      ['travel-rule', 'complete', '--withdrawal', withdrawalId, '--completed-by', 'ops@example.com', '--operator', 'chaos-operator'],
      {
        ...process.env,
        DATABASE_URL: this.stack.databaseUrl,
        TEMPORAL_ADDRESS: this.stack.temporalAddress,
        TEMPORAL_NAMESPACE: 'default',
        PAYLOAD_ENCRYPTION_KEYS: this.stack.payloadKeys,
        LOG_LEVEL: 'warn',
      },
    );
    let output: { error?: string; reason?: string; message?: string } = {};
    try {
      output = JSON.parse(run.stdout) as typeof output;
    } catch {
      output = { error: 'no-json', message: `${run.stdout.slice(0, 200)} ${run.stderr.slice(-300)}` };
    }
    if (run.code === 0) return { result: 'done', retry: false };
    const kind = output.reason ?? output.error ?? 'unknown';
    // Not waiting yet (its check still runs) or unreachable: again later. Anything else is the answer.
    const retry =
      kind === 'not-awaiting-travel-rule-data' ? /IN_PROGRESS /.test(output.message ?? '') : /unavailable|no-json|internal/.test(kind);
    return { result: `${kind}: ${output.message ?? ''}`.slice(0, 300), retry };
  }
}
