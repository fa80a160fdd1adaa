import type { OperationState } from '../core/operation-status';
import { reserveOutgoingPayment } from '../db/queries/reservation.queries';
import type { ReservationPlan, ReservedTable } from '../db/queries/reservation.queries';
import { workflowMismatch } from './accepted-operation.guard';
import type { AcceptedRequestCheck } from './accepted-operation.guard';
import type { ActivityDependencies } from './dependencies';

/**
 * The reserving activities' usual path: one round trip, reserve_outgoing_payment
 * (db/queries/reservation.queries.ts), which holds the money and stores the record only for the
 * operation the API accepted with exactly this input, and only when nothing else is to be decided.
 * Undefined when the activity must reserve step by step as it always did: the workflow is not the
 * operation's own, the input does not build a plan (both refused there), or the database found
 * something to decide (a daily limit, a required address book, an inactive EUR account, an input
 * other than the accepted one). The plan is built from the workflow's input, trusted for nothing:
 * the database writes it only once it has found that input equal to the accepted request.
 */
export async function reserveInOneStatement<Input>(
  deps: Pick<ActivityDependencies, 'pool' | 'clock'>,
  check: AcceptedRequestCheck<Input> & { table: ReservedTable },
  plan: (input: Input, now: Date) => ReservationPlan,
): Promise<OperationState | undefined> {
  if (workflowMismatch(check) !== undefined) return undefined;
  const now = deps.clock.now();
  let planned: ReservationPlan;
  try {
    planned = plan(check.input, now);
  } catch {
    return undefined;
  }
  const outcome = await reserveOutgoingPayment(deps.pool, {
    table: check.table,
    operationId: check.operationId,
    workflowId: check.contract.workflowId(check.operationId),
    request: check.input,
    ...planned,
    now,
  });
  return outcome === 'DECIDE' ? undefined : outcome;
}
