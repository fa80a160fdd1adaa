import { reserveOutgoingPayment } from '../db/queries/reservation.queries';
import type { Reservation, ReservedTable } from '../db/queries/reservation.queries';
import type { ActivityDependencies } from './dependencies';
import { stopUnknownOperation } from './workflow-binding';

/**
 * The reserving activities' one path: reserve_outgoing_payment decides everything in one round
 * trip from the request the API accepted under this id (db/queries/reservation.queries.ts); an id
 * the API accepted no such payment under is refused as an unknown operation.
 */
export async function reserve(
  deps: Pick<ActivityDependencies, 'pool' | 'clock' | 'log'>,
  table: ReservedTable,
  operationId: string,
): Promise<Reservation> {
  const reserved = await reserveOutgoingPayment(deps.pool, { table, operationId, now: deps.clock.now() });
  return 'unknown' in reserved ? stopUnknownOperation(deps, operationId, reserved.unknown) : reserved;
}
