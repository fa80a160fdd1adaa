import { randomUUID } from 'node:crypto';
import {
  findBalanceMismatches,
  findOverdrawnAccounts,
  findStuckOperations,
  findUnbalancedTransfers,
} from '../db/queries/reconciliation.queries';
import { ReconciliationReport } from '../db/entities/reconciliation-report.entity';
import type { ActivityDependencies } from './dependencies';

export interface ReconciliationResult {
  reportId: string;
  ok: boolean;
  unbalancedTransfers: number;
  balanceMismatches: number;
  overdrawnAccounts: number;
  stuckOperations: number;
}

export function createReconciliationActivities(deps: ActivityDependencies) {
  return {
    /** Read-only checks plus one report row; running it twice just records two reports. */
    async reconcileLedger(input: { stuckAfterMs: number }): Promise<ReconciliationResult> {
      const now = deps.clock.now();
      const [unbalanced, mismatches, overdrawn, stuck] = await Promise.all([
        findUnbalancedTransfers(deps.pool),
        findBalanceMismatches(deps.pool),
        findOverdrawnAccounts(deps.pool),
        findStuckOperations(deps.pool, new Date(now.getTime() - input.stuckAfterMs)),
      ]);
      // Stuck operations need attention but do not mean the books are wrong.
      const ok = unbalanced.length === 0 && mismatches.length === 0 && overdrawn.length === 0;
      const reportId = randomUUID();
      const em = deps.orm.em.fork();
      em.create(ReconciliationReport, {
        id: reportId,
        createdAt: now,
        ok,
        report: { unbalanced, mismatches, overdrawn, stuck },
      });
      await em.flush();
      if (!ok) deps.log.error(`reconciliation ${reportId} found broken ledger invariants`);
      return {
        reportId,
        ok,
        unbalancedTransfers: unbalanced.length,
        balanceMismatches: mismatches.length,
        overdrawnAccounts: overdrawn.length,
        stuckOperations: stuck.length,
      };
    },
  };
}
