import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import {
  findBalanceMismatches,
  findHeldTransfersOfOpenOperations,
  findHoldsWithoutOpenOperation,
  findOpenWithoutHold,
  findOverdrawnAccounts,
  findStuckOperations,
  findSuccessfulNotPosted,
  findTransfersWithoutRecord,
  findUnbalancedTransfers,
  findUnsuccessfulNotVoided,
} from '../db/queries/reconciliation.queries';
import type { HeldTransferRow } from '../db/queries/reconciliation.queries';
import { findUnknownOperationsSince } from '../db/queries/accepted-operation.queries';
import { findOrphanedCreditedDeposits } from '../db/queries/crypto-deposit.queries';
import { findUtxoInputConflicts } from '../db/queries/utxo-wallet.queries';
import { findLatestReportTime } from '../db/queries/reconciliation-report.queries';
import { findSuspenseMismatch } from '../db/queries/incoming-sepa-credit.queries';
import { ReconciliationReport } from '../db/entities/reconciliation-report.entity';
import { cryptoWithdrawalContract, sepaTransferContract } from '../contracts';
import type { ReconciliationInput, ReconciliationResult } from '../contracts';
import { checkCustody } from './custody-reconciliation';
import type { CustodyDependencies } from './custody-reconciliation';
import type { ActivityDependencies } from './dependencies';
import { describeWorkflow, isRunning } from './workflow-inspection';

const DEFAULT_HELD_AFTER_MS = 60_000;
const DEFAULT_MAX_HELD_CHECKED = 500;
const DESCRIBE_CONCURRENCY = 10;

export function createReconciliationActivities(deps: ActivityDependencies & CustodyDependencies) {
  /**
   * Asks Temporal about each hold's workflow. A finding is confirmed only if, after the answer,
   * the hold is still there and its operation still open (a workflow that just settled is fine).
   */
  async function heldWithoutRunningWorkflow(rows: readonly HeldTransferRow[]) {
    if (rows.length === 0) return [];
    const client = Context.current().client;
    const contractOf = (row: HeldTransferRow) => (row.operation === 'crypto-withdrawal' ? cryptoWithdrawalContract : sepaTransferContract);
    const findings: (HeldTransferRow & { workflow_id: string; workflow_status: string; workflow_closed_at: string | null })[] = [];
    for (let start = 0; start < rows.length; start += DESCRIBE_CONCURRENCY) {
      const batch = rows.slice(start, start + DESCRIBE_CONCURRENCY);
      const states = await Promise.all(batch.map((row) => describeWorkflow(client, contractOf(row).workflowId(row.transfer_id))));
      batch.forEach((row, index) => {
        const state = states[index]!;
        if (isRunning(state)) return;
        findings.push({
          ...row,
          workflow_id: state.workflowId,
          workflow_status: state.found ? state.status : 'NOT_FOUND',
          workflow_closed_at: state.found ? state.closeTime : null,
        });
      });
    }
    if (findings.length === 0) return findings;
    const stillHeld = await deps.pool.query<{ id: string }>(
      `select t.id from ledger_transfer t
         left join crypto_withdrawal w on w.id = t.id left join sepa_transfer s on s.id = t.id
        where t.id = any($1::uuid[]) and t.state = 'PENDING' and coalesce(w.status, s.status) in ('IN_PROGRESS', 'IN_PROGRESS_TR_DATA')`,
      [findings.map((finding) => finding.transfer_id)],
    );
    const held = new Set(stillHeld.rows.map((row) => row.id));
    return findings.filter((finding) => held.has(finding.transfer_id));
  }

  return {
    /**
     * Read-only checks plus one report row: the ledger with itself, the business records with the ledger, open holds with
     * their workflows in Temporal, and what the EVM chains hold with what partners are owed (custody-reconciliation.ts).
     */
    async reconcileLedger(input: ReconciliationInput): Promise<ReconciliationResult> {
      const now = deps.clock.now();
      const heldBefore = new Date(now.getTime() - (input.heldAfterMs ?? DEFAULT_HELD_AFTER_MS));
      const [
        unbalanced,
        mismatches,
        overdrawn,
        stuck,
        unsuccessfulNotVoided,
        successfulNotPosted,
        openWithoutHold,
        holds,
        held,
        refusedUnknown,
        suspenseMismatch,
        orphanedCredits,
        inputConflicts,
        withoutRecord,
      ] = await Promise.all([
        findUnbalancedTransfers(deps.pool),
        findBalanceMismatches(deps.pool),
        findOverdrawnAccounts(deps.pool),
        findStuckOperations(deps.pool, new Date(now.getTime() - input.stuckAfterMs)),
        findUnsuccessfulNotVoided(deps.pool),
        findSuccessfulNotPosted(deps.pool),
        findOpenWithoutHold(deps.pool, heldBefore),
        findHoldsWithoutOpenOperation(deps.pool),
        findHeldTransfersOfOpenOperations(deps.pool, heldBefore, input.maxHeldTransfersChecked ?? DEFAULT_MAX_HELD_CHECKED),
        findLatestReportTime(deps.pool).then((since) => findUnknownOperationsSince(deps.pool, since)),
        findSuspenseMismatch(deps.pool),
        findOrphanedCreditedDeposits(deps.pool),
        findUtxoInputConflicts(deps.pool),
        findTransfersWithoutRecord(deps.pool),
      ]);
      // A hold under a final operation's id is already an unsuccessful-not-voided or successful-not-posted finding.
      const holdsWithoutOperation = holds.filter((hold) => hold.operation === null);
      const withoutWorkflow = await heldWithoutRunningWorkflow(held.rows);
      const custody = await checkCustody(deps.pool, deps, deps.log);

      // The ledger's own arithmetic; a transfer without its record is money moved outside an operation: a finding of its own.
      const ledgerSound = unbalanced.length === 0 && mismatches.length === 0 && overdrawn.length === 0;
      const counts = {
        unbalancedTransfers: unbalanced.length,
        balanceMismatches: mismatches.length,
        overdrawnAccounts: overdrawn.length,
        stuckOperations: stuck.length,
        heldWithoutRunningWorkflow: withoutWorkflow.length,
        unsuccessfulNotVoided: unsuccessfulNotVoided.length,
        successfulNotPosted: successfulNotPosted.length,
        openWithoutHold: openWithoutHold.length,
        holdsWithoutOperation: holdsWithoutOperation.length,
        refusedUnknownOperations: refusedUnknown.length,
        suspenseMismatches: suspenseMismatch.length,
        orphanedCreditedDeposits: orphanedCredits.length,
        utxoInputConflicts: inputConflicts.length,
        transfersWithoutRecord: withoutRecord.length,
        custodyShortfalls: custody.shortfalls.length,
      };
      const ok = Object.values(counts).every((count) => count === 0);
      const reportId = randomUUID();
      const em = deps.orm.em.fork();
      em.create(ReconciliationReport, {
        id: reportId,
        createdAt: now,
        ok,
        report: {
          unbalanced,
          mismatches,
          overdrawn,
          stuck,
          heldWithoutRunningWorkflow: withoutWorkflow,
          unsuccessfulNotVoided,
          successfulNotPosted,
          openWithoutHold,
          holdsWithoutOperation,
          refusedUnknownOperations: refusedUnknown,
          suspenseMismatch,
          orphanedCreditedDeposits: orphanedCredits,
          utxoInputConflicts: inputConflicts,
          transfersWithoutRecord: withoutRecord,
          custodyShortfalls: custody.shortfalls,
          custody: custody.lines,
          custodyUnchecked: custody.unchecked,
          heldTransfersChecked: held.rows.length,
          heldTransfersTotal: held.total,
        },
      });
      await em.flush();
      if (!ledgerSound) deps.log.error(`reconciliation ${reportId} found broken ledger invariants`);
      else if (!ok) deps.log.warn(`reconciliation ${reportId} found operations that need an operator`);
      return { reportId, ok, ledgerSound, ...counts, heldTransfersChecked: held.rows.length, heldTransfersTotal: held.total };
    },
  };
}
