import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  isCancellation,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { isFinal } from '../core/operation-status';
import type { AbandonOutcome, OperationState } from '../core/operation-status';
import { OPERATION_STAGE, OPERATION_STATUS } from '../core/search-attributes';
import { failureCause, isRefusal, isUnknownOperation, refusalOf, refusalStage } from './failure-cause';
import { statusQuery } from '../contracts';
import type { OperationProgress } from '../contracts';
import { ReservationGate } from './reservation-gate';

/**
 * What money-moving workflows share: the progress behind the `status` query and search attributes, and for one that
 * answers its caller once funds are held (`earlyAnswer`: the operation's id), the reservation that answers it.
 */
export class OperationTracker {
  private progress: OperationProgress;
  private readonly gate: ReservationGate | undefined;

  constructor(start: { earlyAnswer: string } | { first: OperationProgress }) {
    this.progress = 'first' in start ? start.first : { status: 'IN_PROGRESS', stage: 'RESERVING' };
    setHandler(statusQuery, () => this.progress);
    this.gate = 'earlyAnswer' in start ? new ReservationGate(start.earlyAnswer) : undefined;
    setCurrentDetails(progressDetails(this.progress));
  }

  get current(): OperationProgress {
    return this.progress;
  }

  /** The new progress, everywhere operators look: the status query, the search attributes, the current details. */
  report(next: OperationProgress, note?: string): void {
    this.progress = next;
    upsertSearchAttributes([
      { key: OPERATION_STATUS, value: next.status },
      { key: OPERATION_STAGE, value: next.stage },
    ]);
    setCurrentDetails(progressDetails(next, note));
  }

  /** Lets pending update and signal handlers finish, then gives the final progress. */
  async finish(): Promise<OperationProgress> {
    // Usually they are: skip the scope and condition, whose promises the SDK records a stack trace for.
    if (allHandlersFinished()) return this.progress;
    // Non-cancellable: a workflow that was cancelled still lets its handlers answer.
    await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
    return this.progress;
  }

  /**
   * Runs the reservation and answers the caller; false when the workflow is over (refused, or a re-run found it closed).
   * A stopped reservation is abandoned first: a tombstone stops any attempt on its way or a Reset (a committed hold is
   * released). An unknown outcome then fails the workflow with `operation-abandoned` (or ends it Canceled).
   */
  async reserve(reservation: () => Promise<OperationState>, abandon: () => Promise<AbandonOutcome>): Promise<boolean> {
    const gate = this.gate;
    if (!gate) throw new Error('reserve() belongs to a workflow that answers its caller early (earlyAnswer)');
    let state: OperationState;
    try {
      state = await reservation();
    } catch (error) {
      const cause = failureCause(error);
      if (isUnknownOperation(cause)) {
        // Not an operation the API accepted: its id may be a real operation's, whose money an abandon would touch.
        return this.refuse(cause, gate);
      }
      if ((await CancellationScope.nonCancellable(abandon)) === 'HANDED_OFF') {
        // An earlier run (before a Reset) reserved and handed the money off: follow it to its end.
        gate.opened();
        return true;
      }
      if (isRefusal(cause)) return this.refuse(cause, gate);
      const message = 'the reservation could not be confirmed, so it was abandoned: nothing was moved';
      const abandoned = ApplicationFailure.create({
        type: 'operation-abandoned',
        message,
        nonRetryable: true,
        cause: cause instanceof Error ? cause : undefined,
      });
      this.report({ status: 'UNSUCCESSFUL', stage: 'ABANDONED', failureReason: message });
      gate.refused(abandoned);
      await this.finish();
      throw isCancellation(cause) ? cause : abandoned;
    }
    gate.opened();
    if (isFinal(state.status)) {
      // A re-run (reset, or the same id after retention) of an operation that is already over.
      this.report({ status: state.status, stage: state.stage });
      return false;
    }
    this.report({ status: 'IN_PROGRESS', stage: 'RESERVED' });
    return true;
  }

  /** The refusal is the workflow's result and the waiting caller's answer (when one waits); the workflow is over. */
  refuse(cause: ApplicationFailure, gate = this.gate): false {
    const refusal = refusalOf(cause);
    this.report({ status: 'UNSUCCESSFUL', stage: refusalStage(refusal), failureReason: refusal.message, refusal });
    gate?.refused(cause);
    return false;
  }
}

/**
 * The Temporal UI's current details (a metadata query, no command). Not the failure reason: free text from a bank or a
 * chain may carry personal data.
 */
export function progressDetails(progress: OperationProgress, note?: string): string {
  const lines = [`**Stage:** ${progress.stage} · status ${progress.status} · updated ${new Date().toISOString()}`];
  if (progress.refusal) lines.push(`**Refused:** ${progress.refusal.kind}`);
  if (note) lines.push(note);
  return lines.join('\n\n');
}
