import type { ReconciliationResult } from '../contracts';
import { DomainError } from '../core/errors';
import { findLatestReconciliationReport } from '../db/queries/reconciliation-report.queries';
import type { Command } from './ops-command';
import { command } from './ops-command';

/** The reconciliation commands of the operator CLI (main/ops.cli.ts). */
export const RECONCILIATION_USAGE = `  reconciliation latest                  (the newest report: counts per kind of finding, then the findings)`;

type FindingCounts = Omit<ReconciliationResult, 'reportId' | 'ok' | 'ledgerSound' | 'heldTransfersChecked' | 'heldTransfersTotal'>;

/** Where each count of ReconciliationResult is listed in the stored report (activities/reconciliation.activities.ts). */
const REPORT_LISTS: Readonly<Record<keyof FindingCounts, string>> = {
  unbalancedTransfers: 'unbalanced',
  balanceMismatches: 'mismatches',
  overdrawnAccounts: 'overdrawn',
  stuckOperations: 'stuck',
  heldWithoutRunningWorkflow: 'heldWithoutRunningWorkflow',
  unsuccessfulNotVoided: 'unsuccessfulNotVoided',
  successfulNotPosted: 'successfulNotPosted',
  openWithoutHold: 'openWithoutHold',
  holdsWithoutOperation: 'holdsWithoutOperation',
  refusedUnknownOperations: 'refusedUnknownOperations',
  suspenseMismatches: 'suspenseMismatch',
  orphanedCreditedDeposits: 'orphanedCreditedDeposits',
  utxoInputConflicts: 'utxoInputConflicts',
  transfersWithoutRecord: 'transfersWithoutRecord',
  custodyShortfalls: 'custodyShortfalls',
};
const LEDGER_INVARIANTS: ReadonlyArray<keyof FindingCounts> = ['unbalancedTransfers', 'balanceMismatches', 'overdrawnAccounts'];

export const reconciliationCommands: Record<string, Command> = {
  'reconciliation latest': command({
    changesState: false,
    async run({ em }) {
      const row = await findLatestReconciliationReport(em);
      if (!row)
        throw new DomainError('not-found', 'no reconciliation report yet: the ledger-reconciliation Schedule runs every 15 minutes');
      const findings = Object.fromEntries(
        Object.entries(REPORT_LISTS).map(([count, list]) => [count, lengthOf(row.report[list])]),
      ) as Record<keyof FindingCounts, number>;
      const problems = Object.values(findings).reduce((sum, count) => sum + count, 0);
      return {
        reportId: row.id,
        createdAt: row.created_at,
        ok: row.ok,
        ledgerSound: LEDGER_INVARIANTS.every((count) => findings[count] === 0),
        problems,
        findings,
        heldTransfersChecked: row.report.heldTransfersChecked ?? null,
        heldTransfersTotal: row.report.heldTransfersTotal ?? null,
        report: row.report,
      };
    },
  }),
};

/** A list's length; each list in a report holds at most 100 rows, so a count of 100 means "100 or more". */
function lengthOf(list: unknown): number {
  return Array.isArray(list) ? list.length : 0;
}
