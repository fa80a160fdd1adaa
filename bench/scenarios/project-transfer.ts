import { randomUUID } from 'node:crypto';
import { openPool } from '../database';
import { postTransfer, postTransferDirectly, reserveTransfer } from '../../db/ledger/ledger';
import type { TransferInput } from '../../db/ledger/ledger';

/**
 * The one place the bench calls the project's ledger, through a pg pool: each call one
 * statement and its own transaction (the form activities use joins the caller's transaction).
 */
export interface ProjectLedger {
  /** Reserved, then posted, as a withdrawal does: two ledger operations, two commits. */
  reserveAndPost(sourceAccountId: string, sinkAccountId: string, amount: string): Promise<void>;
  /** Posted at once, as an exchange or a deposit does: one ledger operation, one commit. */
  postDirectly(sourceAccountId: string, sinkAccountId: string, amount: string): Promise<void>;
  close(): Promise<void>;
}

export function openProjectLedger(databaseUrl: string, poolMax: number): ProjectLedger {
  const pool = openPool(databaseUrl, poolMax);
  return {
    async reserveAndPost(sourceAccountId, sinkAccountId, amount) {
      const input = transferInput(sourceAccountId, sinkAccountId, amount);
      await reserveTransfer(pool, input, new Date());
      await postTransfer(pool, input.transferId, new Date());
    },
    async postDirectly(sourceAccountId, sinkAccountId, amount) {
      await postTransferDirectly(pool, transferInput(sourceAccountId, sinkAccountId, amount), new Date());
    },
    close: () => pool.end(),
  };
}

function transferInput(sourceAccountId: string, sinkAccountId: string, amount: string): TransferInput {
  return {
    transferId: randomUUID(),
    kind: 'CRYPTO_WITHDRAWAL',
    postings: [
      { accountId: sourceAccountId, amount: `-${amount}` },
      { accountId: sinkAccountId, amount },
    ],
  };
}
