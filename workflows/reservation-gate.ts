import { CancellationScope, condition, setHandler } from '@temporalio/workflow';
import type { ApplicationFailure } from '@temporalio/workflow';
import { fundsReservedUpdate } from '../contracts';

/** The fundsReserved update answers the API once the reservation succeeded (or was refused); the workflow goes on. */
export class ReservationGate {
  private outcome: { reserved: true } | { error: ApplicationFailure } | undefined;

  constructor(id: string) {
    setHandler(fundsReservedUpdate, async () => {
      // Non-cancellable: a workflow cancelled meanwhile still tells its caller what happened.
      if (this.outcome === undefined) await CancellationScope.nonCancellable(() => condition(() => this.outcome !== undefined));
      if (this.outcome && 'error' in this.outcome) throw this.outcome.error;
      return { id };
    });
  }

  opened(): void {
    this.outcome = { reserved: true };
  }

  /** Rejects every waiting caller with the refusal; the workflow itself ends with it as its result. */
  refused(failure: ApplicationFailure): void {
    this.outcome = { error: failure };
  }
}
