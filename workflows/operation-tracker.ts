import { allHandlersFinished, condition, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import { isFinal } from '../core/operation-status';
import type { OperationState } from '../core/operation-status';
import { OPERATION_STATUS } from '../core/search-attributes';
import { businessCause, isBusinessFailure } from './business-cause';
import { statusQuery } from './definitions';
import type { OperationProgress } from './definitions';
import { ReservationGate } from './reservation-gate';

/**
 * What every money-moving workflow shares: the progress behind the `status` query and the
 * OperationStatus search attribute, and the reservation step that answers the waiting caller.
 */
export class OperationTracker {
  private progress: OperationProgress = { status: 'IN_PROGRESS', stage: 'RESERVING' };
  private readonly gate: ReservationGate;

  constructor(id: string) {
    setHandler(statusQuery, () => this.progress);
    this.gate = new ReservationGate(id);
  }

  report(next: OperationProgress): void {
    this.progress = next;
    upsertSearchAttributes([{ key: OPERATION_STATUS, value: next.status }]);
  }

  /** Lets pending update and signal handlers finish, then gives the final progress. */
  async finish(): Promise<OperationProgress> {
    await condition(allHandlersFinished);
    return this.progress;
  }

  /**
   * Runs the reservation and answers the caller. Returns true when the workflow should go on;
   * false when a re-run found the operation already over. A refused reservation fails the
   * workflow with its business error; one whose outcome is unknown is abandoned (voided if made).
   */
  async reserve(reservation: () => Promise<OperationState>, abandon: () => Promise<void>): Promise<boolean> {
    let state: OperationState;
    try {
      state = await reservation();
    } catch (error) {
      const cause = businessCause(error);
      if (!isBusinessFailure(cause)) await abandon();
      this.report({ status: 'UNSUCCESSFUL', stage: 'NOT_RESERVED' });
      return this.gate.refused(cause);
    }
    this.gate.opened();
    if (isFinal(state.status)) {
      // A re-run (reset, or the same id after retention) of an operation that is already over.
      this.report({ status: state.status, stage: state.stage });
      return false;
    }
    this.report({ status: 'IN_PROGRESS', stage: 'RESERVED' });
    return true;
  }
}
