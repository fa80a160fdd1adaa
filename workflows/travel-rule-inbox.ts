import { ApplicationFailure, CancellationScope, condition, setHandler } from '@temporalio/workflow';
import type { OperationStatus } from '../core/operation-status';
import type { TravelRuleCompletion } from '../core/travel-rule-completion';
import type * as TravelRuleCompletionModule from '../core/travel-rule-completion';
import { completeTravelRuleUpdate } from '../contracts';

/** How a pending completion ended for its caller. */
type Answer = 'RECORDED' | 'CLOSED' | { refused: string };

/**
 * A withdrawal's travel-rule completion: accepted only while it waits, when valid and naming the audit row that
 * `npm run ops -- travel-rule complete` wrote first (the validator keeps anything else out of the history). The
 * recording step checks that row; if refused, the caller learns why and the withdrawal waits again.
 */
export class TravelRuleInbox {
  private waiting = false;
  /** The completion being recorded, and which Update brought it. */
  private received: { completion: TravelRuleCompletion; attempt: number } | undefined;
  private attempts = 0;
  private readonly answers = new Map<number, Answer>();
  private final: 'RECORDED' | 'CLOSED' | undefined;

  constructor(withdrawalId: string, status: () => OperationStatus) {
    setHandler(
      completeTravelRuleUpdate,
      async (input) => {
        const attempt = ++this.attempts;
        // A replay keeps what the validator accepted then, even if the rules have tightened since.
        this.received ??= { completion: this.accepted(input), attempt };
        // Non-cancellable: a caller whose completion was stored learns so even if the workflow is cancelled.
        await CancellationScope.nonCancellable(() => condition(() => this.answers.has(attempt) || this.final !== undefined));
        const answer = this.answers.get(attempt) ?? this.final;
        if (answer === 'RECORDED') return { withdrawalId, status: status() };
        throw ApplicationFailure.create({
          type: 'invalid-request',
          message: typeof answer === 'object' ? answer.refused : 'the withdrawal stopped waiting for travel-rule data',
          nonRetryable: true,
        });
      },
      { validator: (input) => void this.parse(input) },
    );
  }

  /** Waits for a valid completion until the deadline; undefined when none came in time. */
  async await(deadlineMs: number): Promise<TravelRuleCompletion | undefined> {
    this.waiting = true;
    const arrived = await condition(() => this.received !== undefined, deadlineMs);
    this.waiting = false;
    if (!arrived) {
      this.final = 'CLOSED';
      return undefined;
    }
    return this.received?.completion;
  }

  /** The completion is stored: answers the Update's caller. */
  recorded(): void {
    this.final = 'RECORDED';
  }

  /** The database refused to record it (no such audit row, …): its caller learns why, and the next one may come. */
  refused(reason: string): void {
    if (this.received) this.answers.set(this.received.attempt, { refused: reason });
    this.received = undefined;
  }

  /** The withdrawal ended without using a completion: pending callers learn it. */
  close(): void {
    this.final ??= 'CLOSED';
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
    if (parsed.completion.operatorActionId === undefined) {
      throw ApplicationFailure.create({
        type: 'invalid-request',
        message: 'travel-rule data is completed with npm run ops -- travel-rule complete, which records who did it and why first',
        nonRetryable: true,
      });
    }
    return parsed.completion;
  }
}

/**
 * Loaded on first use: the bundle's modules are evaluated per workflow run, and zod's cost milliseconds of CPU while few
 * withdrawals ever receive a completion. Deterministic, so replay is unaffected.
 */
function parseTravelRuleCompletion(input: unknown): ReturnType<typeof TravelRuleCompletionModule.parseTravelRuleCompletion> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy require is the point (see above)
  const completion = require('../core/travel-rule-completion') as typeof TravelRuleCompletionModule;
  return completion.parseTravelRuleCompletion(input);
}
