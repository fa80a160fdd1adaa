import { ApplicationFailure, CancellationScope, condition, log, setHandler } from '@temporalio/workflow';
import type { OperationStatus } from '../core/operation-status';
import type { TravelRuleCompletion } from '../core/travel-rule-completion';
import type * as TravelRuleCompletionModule from '../core/travel-rule-completion';
import { completeTravelRuleUpdate, travelRuleDataCompletedSignal } from '../contracts';

/**
 * Where a withdrawal receives its travel-rule completion. Accepted only while the withdrawal
 * waits for it, and only when valid (who completed it, IVMS101 beneficiary data): the Update's
 * validator refuses anything else before it reaches the history, so a bad payload changes
 * nothing. The caller's answer comes once the completion is recorded in the database.
 */
export class TravelRuleInbox {
  private waiting = false;
  private received: TravelRuleCompletion | undefined;
  private outcome: 'RECORDED' | 'CLOSED' | undefined;

  constructor(withdrawalId: string, status: () => OperationStatus) {
    setHandler(
      completeTravelRuleUpdate,
      async (input) => {
        // The validator judged it when it arrived; a replay keeps what was accepted then, even
        // if the rules have tightened since.
        this.received ??= this.accepted(input);
        // Non-cancellable: a caller whose completion was stored learns so even if the workflow is cancelled.
        await CancellationScope.nonCancellable(() => condition(() => this.outcome !== undefined));
        if (this.outcome === 'CLOSED') {
          throw ApplicationFailure.create({
            type: 'invalid-request',
            message: 'the withdrawal stopped waiting for travel-rule data',
            nonRetryable: true,
          });
        }
        return { withdrawalId, status: status() };
      },
      { validator: (input) => void this.parse(input) },
    );
    setHandler(travelRuleDataCompletedSignal, (input) => {
      try {
        this.received ??= this.parse(input);
      } catch (error) {
        log.warn('ignored an invalid travelRuleDataCompleted signal', { reason: error instanceof Error ? error.message : String(error) });
      }
    });
  }

  /** Waits for a valid completion until the deadline; undefined when none came in time. */
  async await(deadlineMs: number): Promise<TravelRuleCompletion | undefined> {
    this.waiting = true;
    const arrived = await condition(() => this.received !== undefined, deadlineMs);
    this.waiting = false;
    if (!arrived) {
      this.outcome = 'CLOSED';
      return undefined;
    }
    return this.received;
  }

  /** The completion is stored: answers the Update's caller. */
  recorded(): void {
    this.outcome = 'RECORDED';
  }

  /** The withdrawal ended without using a completion: pending callers learn it. */
  close(): void {
    this.outcome ??= 'CLOSED';
  }

  private accepted(input: TravelRuleCompletion): TravelRuleCompletion {
    const parsed = parseTravelRuleCompletion(input);
    return 'completion' in parsed ? parsed.completion : input;
  }

  private parse(input: unknown): TravelRuleCompletion {
    if (!this.waiting || this.received !== undefined) {
      throw ApplicationFailure.create({
        type: 'invalid-request',
        message: 'the withdrawal is not waiting for travel-rule data',
        nonRetryable: true,
      });
    }
    const parsed = parseTravelRuleCompletion(input);
    if ('problems' in parsed) throw ApplicationFailure.create({ type: 'invalid-request', message: parsed.problems, nonRetryable: true });
    return parsed.completion;
  }
}

/**
 * The validator's schema module, loaded on first use. The worker evaluates the workflow bundle's
 * modules again for every workflow run (each run gets its own module state), and zod's take
 * several milliseconds of CPU, for every exchange and transfer, while few withdrawals ever
 * receive a completion. Evaluating a module is deterministic, so replay is unaffected.
 */
function parseTravelRuleCompletion(input: unknown): ReturnType<typeof TravelRuleCompletionModule.parseTravelRuleCompletion> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy require is the point (see above)
  const completion = require('../core/travel-rule-completion') as typeof TravelRuleCompletionModule;
  return completion.parseTravelRuleCompletion(input);
}
