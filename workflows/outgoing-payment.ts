import { CancellationScope, CancelledFailure, condition, isCancellation, sleep } from '@temporalio/workflow';
import type { ReleaseOutcome } from '../core/operation-status';
import { ANSWER_WAIT } from './activity-options';
import { failureCause, isDefiniteFailure } from './failure-cause';
import type { OperationProgress } from '../contracts';
import type { OperationTracker } from './operation-tracker';

/** What the chain or the bank answered about money handed to it. */
export type ExternalAnswer = { state: 'SETTLED' } | { state: 'REJECTED'; reason: string };

/** The steps of one kind of outgoing payment (crypto withdrawal, SEPA transfer). */
export interface OutgoingPayment<Reference> {
  /** Checks before the hand-off; HANDED_OFF when a re-run (after a Reset) finds them over. */
  checks(): Promise<CheckOutcome>;
  /** Records the hand-off while still cancellable: from its commit the money may leave. `closed`: the operation was over. */
  markHandOff(): Promise<'MARKED' | { closed: ClosedState }>;
  release(reason: string, stage: 'FAILED' | 'CANCELLED'): Promise<ReleaseOutcome>;
  /** Hands the money over (idempotent); `closed` when the operation turned out to be over. */
  handOff(): Promise<{ reference: Reference } | { closed: ClosedState }>;
  /** The stage reported once handed off: BROADCAST, SUBMITTED. */
  handedOffStage: string;
  /** Asks the chain or the bank once (one polling window): its answer, or PENDING when it has none yet. */
  askForAnswer(reference: Reference): Promise<ExternalAnswer | 'PENDING'>;
  /** Waits for the answer however long it takes, without growing the history (after the polling phase). */
  awaitAnswerPatiently(reference: Reference): Promise<ExternalAnswer>;
  settle(): Promise<void>;
  /** Releases on a definite rejection from the chain or bank, recording it. */
  reject(reason: string): Promise<void>;
  recordCancellationRequest(): Promise<void>;
}

type ClosedState = { status: OperationProgress['status']; stage: string };

export type CheckOutcome = 'PASSED' | 'HANDED_OFF' | { failed: string };

const CANCELLED_BEFORE_HAND_OFF = 'cancelled by an operator before the money was handed off';

/**
 * Money going out: (reserved) → checks → hand-off → await answer → settle or release.
 * - Before the hand-off (recorded in its own cancellable step) a failure or a cancellation releases the funds.
 * - After it a cancellation is only noted; only a definite answer releases. Uncertain failures fail the workflow with
 *   the money held, for an operator (`ops operation resolve`).
 * - A release that finds the money handed off (a Reset re-ran the checks) continues with the idempotent hand-off.
 */
export async function runOutgoingPayment<Reference>(
  tracker: OperationTracker,
  payment: OutgoingPayment<Reference>,
): Promise<OperationProgress> {
  let cancelRequested = false;
  CancellationScope.current().cancelRequested.catch(() => {
    cancelRequested = true;
  });

  let failure: { reason: string; stage: 'FAILED' | 'CANCELLED' } | undefined;
  let marked: 'MARKED' | { closed: ClosedState } | undefined;
  try {
    const checked = await payment.checks();
    if (typeof checked === 'object') failure = { reason: checked.failed, stage: 'FAILED' };
    else if (!cancelRequested) marked = await payment.markHandOff();
    if (cancelRequested) failure = { reason: CANCELLED_BEFORE_HAND_OFF, stage: 'CANCELLED' };
  } catch (error) {
    if (isCancellation(error)) failure = { reason: CANCELLED_BEFORE_HAND_OFF, stage: 'CANCELLED' };
    else failure = { reason: reasonOf(error, 'a check before the hand-off failed'), stage: 'FAILED' };
  }

  return CancellationScope.nonCancellable(async () => {
    // The database decides: a committed hand-off wins over a late cancellation or failure.
    if (failure && (await payment.release(failure.reason, failure.stage)) === 'RELEASED') {
      tracker.report({ status: 'UNSUCCESSFUL', stage: failure.stage, failureReason: failure.reason });
      const progress = await tracker.finish();
      if (failure.stage === 'CANCELLED') throw new CancelledFailure(failure.reason);
      return progress;
    }
    if (typeof marked === 'object') {
      tracker.report({ status: marked.closed.status, stage: marked.closed.stage });
      return tracker.finish();
    }
    // From here on a cancellation is only noted: the money may be on its way.
    const noted = condition(() => cancelRequested).then(() => payment.recordCancellationRequest());
    const progress = await handOffAndSettle(tracker, payment);
    if (cancelRequested) await noted;
    return progress;
  });
}

async function handOffAndSettle<Reference>(tracker: OperationTracker, payment: OutgoingPayment<Reference>): Promise<OperationProgress> {
  let answer: ExternalAnswer;
  try {
    const handOff = await payment.handOff();
    if ('closed' in handOff) {
      tracker.report({ status: handOff.closed.status, stage: handOff.closed.stage });
      return tracker.finish();
    }
    tracker.report({ status: 'IN_PROGRESS', stage: payment.handedOffStage });
    answer = await untilAnswered(
      () => payment.askForAnswer(handOff.reference),
      () => payment.awaitAnswerPatiently(handOff.reference),
    );
  } catch (error) {
    const cause = failureCause(error);
    // Anything but a definite answer leaves the money held and the workflow Failed, for a person.
    if (!isDefiniteFailure(cause)) throw cause;
    answer = { state: 'REJECTED', reason: cause.message };
  }
  if (answer.state === 'SETTLED') {
    await payment.settle();
    tracker.report({ status: 'SUCCESSFUL', stage: 'SETTLED' });
  } else {
    await payment.reject(answer.reason);
    tracker.report({ status: 'UNSUCCESSFUL', stage: 'REJECTED', failureReason: answer.reason });
  }
  return tracker.finish();
}

/** Asks with doubling waits (ANSWER_WAIT), then waits patiently so the history stays bounded. No deadline. */
async function untilAnswered(
  ask: () => Promise<ExternalAnswer | 'PENDING'>,
  awaitPatiently: () => Promise<ExternalAnswer>,
): Promise<ExternalAnswer> {
  for (let waitMs: number = ANSWER_WAIT.firstMs; waitMs < ANSWER_WAIT.longestMs; waitMs *= 2) {
    const answer = await ask();
    if (answer !== 'PENDING') return answer;
    await sleep(waitMs);
  }
  return awaitPatiently();
}

function reasonOf(error: unknown, fallback: string): string {
  const cause = failureCause(error);
  return cause instanceof Error && cause.message ? cause.message : fallback;
}
