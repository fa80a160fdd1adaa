import {
  findBalanceMismatches,
  findHoldsWithoutOpenOperation,
  findOverdrawnAccounts,
  findUnbalancedTransfers,
} from '../../db/queries/reconciliation.queries';
import type { BalanceMismatchRow, HoldWithoutOpenOperationRow, UnbalancedTransferRow } from '../../db/queries/reconciliation.queries';
import { endPool, openPool } from '../../db/pool';

/**
 * The ledger check the suite runs at its end (global-teardown.ts) and the fault campaign after
 * each fault: every transfer balanced, every cached balance equal to its postings, no partner
 * below zero, no hold without an open operation to explain it.
 */
export interface LedgerCheck {
  transfers: number;
  unbalanced: UnbalancedTransferRow[];
  mismatches: BalanceMismatchRow[];
  overdrawn: Array<{ account_id: string; available: string }>;
  unexplainedHolds: HoldWithoutOpenOperationRow[];
}

export async function checkLedger(databaseUrl: string): Promise<LedgerCheck> {
  const pool = openPool({ connectionString: databaseUrl, max: 3 });
  try {
    const [unbalanced, mismatches, overdrawn, unexplainedHolds, transfers] = await Promise.all([
      findUnbalancedTransfers(pool),
      findBalanceMismatches(pool),
      findOverdrawnAccounts(pool),
      findHoldsWithoutOpenOperation(pool),
      pool.query<{ count: string }>('select count(*) from ledger_transfer'),
    ]);
    return { transfers: Number(transfers.rows[0]?.count ?? 0), unbalanced, mismatches, overdrawn, unexplainedHolds };
  } finally {
    await endPool(pool);
  }
}

export function ledgerProblemCount(check: LedgerCheck): number {
  return check.unbalanced.length + check.mismatches.length + check.overdrawn.length + check.unexplainedHolds.length;
}

/** One line: how many transfers, and how many of each finding. */
export function describeLedgerCheck(check: LedgerCheck): string {
  return (
    `${check.transfers} transfers, ${check.unbalanced.length} unbalanced, ${check.mismatches.length} cached balances off, ` +
    `${check.overdrawn.length} overdrawn, ${check.unexplainedHolds.length} holds without an open operation`
  );
}

/** Runs the check, prints its line under `title`, and throws with the findings if there are any. */
export async function assertLedgerHolds(databaseUrl: string, title: string): Promise<LedgerCheck> {
  const check = await checkLedger(databaseUrl);
  process.stderr.write(`\nledger check ${title}: ${describeLedgerCheck(check)}\n`);
  if (ledgerProblemCount(check) > 0) {
    const { unbalanced, mismatches, overdrawn, unexplainedHolds } = check;
    throw new Error(`ledger check failed: ${JSON.stringify({ unbalanced, mismatches, overdrawn, unexplainedHolds })}`);
  }
  return check;
}
