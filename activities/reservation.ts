import type { OperationState } from '../core/operation-status';
import { reserveOutgoingPayment } from '../db/queries/reservation.queries';
import type { ReservationPlan, ReservedTable } from '../db/queries/reservation.queries';
import { refuseUnknownOperation, workflowMismatch } from './accepted-operation.guard';
import type { AcceptedRequestCheck } from './accepted-operation.guard';
import type { ActivityDependencies } from './dependencies';

/**
 * The reserving activities' one path: reserve_outgoing_payment decides everything in one round
 * trip (db/queries/reservation.queries.ts), and writes only for the operation the API accepted
 * with exactly this input. The plan is built from the workflow's input, trusted for nothing: the
 * database writes it only once it has found that input equal to the accepted request, so an input
 * that builds no plan is not one the API accepted.
 */
export async function reserve<Input>(
  deps: Pick<ActivityDependencies, 'pool' | 'clock' | 'log'>,
  check: AcceptedRequestCheck<Input> & { table: ReservedTable },
  plan: (input: Input, now: Date) => ReservationPlan,
): Promise<OperationState> {
  const mismatch = workflowMismatch(check);
  if (mismatch !== undefined) return refuseUnknownOperation(deps, check.operationId, mismatch);
  const now = deps.clock.now();
  let planned: ReservationPlan;
  try {
    planned = plan(check.input, now);
  } catch {
    return refuseUnknownOperation(
      deps,
      check.operationId,
      `the workflow input is no request the API accepts for operation ${check.operationId}`,
    );
  }
  const reserved = await reserveOutgoingPayment(deps.pool, {
    table: check.table,
    operationId: check.operationId,
    workflowId: check.contract.workflowId(check.operationId),
    request: check.input,
    ...planned,
    now,
  });
  return 'unknown' in reserved ? refuseUnknownOperation(deps, check.operationId, reserved.unknown) : reserved;
}
