import type pg from 'pg';
import type { LedgerTransferKind } from '../entities/ledger-transfer.entity';
import type { TombstoneOutcome } from '../ledger/ledger';

/**
 * The API's side of the race with a late reservation (see db/ledger tombstoneTransfer): one
 * statement that either guarantees nothing will ever move under the id, or reports it moved.
 */
export async function tombstoneOperation(pool: pg.Pool, operationId: string, kind: LedgerTransferKind): Promise<TombstoneOutcome> {
  const result = await pool.query<{ outcome: TombstoneOutcome }>('select ledger_tombstone($1, $2) as outcome', [operationId, kind]);
  const outcome = result.rows[0]?.outcome;
  if (outcome !== 'TOMBSTONED' && outcome !== 'MOVED') throw new Error(`ledger_tombstone gave no answer for ${operationId}`);
  return outcome;
}
