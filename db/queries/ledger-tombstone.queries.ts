import type pg from 'pg';
import type { LedgerTransferKind } from '../entities/ledger-transfer.entity';
import { tombstoneTransfer } from '../ledger/ledger';
import type { TombstoneOutcome } from '../ledger/ledger';

/** The API's side of the race with a late reservation (tombstoneTransfer). */
export async function tombstoneOperation(pool: pg.Pool, operationId: string, kind: LedgerTransferKind): Promise<TombstoneOutcome> {
  return tombstoneTransfer(pool, operationId, kind);
}
