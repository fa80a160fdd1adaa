import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { RECONCILIATION_SCHEDULE_ID } from '../../../../worker/reconciliation-schedule';
import { checkLedger, describeLedgerCheck, ledgerProblemCount } from '../../../support/ledger-check';
import { sleep } from '../client';
import { anomaly } from './anomalies';
import type { Anomaly } from './anomalies';

/**
 * The books once everything is final: the ledger check the test suites run (every transfer
 * balanced, cached balances equal to their postings, nobody below zero, no hold without an open
 * operation), no hold left at all, and the service's own reconciliation, triggered now on its
 * Schedule and read from the report it stores.
 */

const REPORT_TIMEOUT_MS = 120_000;

export async function auditLedger(input: {
  databaseUrl: string;
  temporalAddress: string;
}): Promise<{ anomalies: Anomaly[]; summary: string }> {
  const anomalies: Anomaly[] = [];
  const ledger = await checkLedger(input.databaseUrl);
  if (ledgerProblemCount(ledger) > 0) {
    anomalies.push(
      anomaly(
        'ledger',
        `ledger check: ${describeLedgerCheck(ledger)}: ${JSON.stringify({ ...ledger, transfers: undefined }).slice(0, 1000)}`,
      ),
    );
  }
  const pool = new pg.Pool({ connectionString: input.databaseUrl, max: 1 });
  try {
    const held = await pool.query<{ id: string; kind: string }>(
      `select id, kind from ledger_transfer where state = 'PENDING' order by created_at limit 20`,
    );
    for (const row of held.rows) anomalies.push(anomaly('stuck', `${row.kind} ${row.id} still holds its money`));
    const report = await freshReconciliation(pool, input.temporalAddress);
    if (!report)
      anomalies.push(
        anomaly(
          'ledger',
          `the reconciliation triggered on ${RECONCILIATION_SCHEDULE_ID} wrote no report within ${REPORT_TIMEOUT_MS / 1000} s`,
        ),
      );
    else if (!report.ok)
      anomalies.push(anomaly('ledger', `reconciliation ${report.id} found problems: ${JSON.stringify(report.report).slice(0, 1500)}`));
    return {
      anomalies,
      summary: `${describeLedgerCheck(ledger)}; reconciliation ${report ? (report.ok ? 'clean' : 'found problems') : 'wrote no report'}`,
    };
  } finally {
    await pool.end();
  }
}

/** Triggers the Schedule and waits for the report its run writes. */
async function freshReconciliation(
  pool: pg.Pool,
  temporalAddress: string,
): Promise<{ id: string; ok: boolean; report: unknown } | undefined> {
  const before = (await pool.query<{ count: string }>('select count(*) from reconciliation_report')).rows[0]!.count;
  const connection = await Connection.connect({ address: temporalAddress });
  try {
    await new Client({ connection, namespace: 'default' }).schedule.getHandle(RECONCILIATION_SCHEDULE_ID).trigger();
  } finally {
    await connection.close();
  }
  const deadline = Date.now() + REPORT_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const rows = await pool.query<{ id: string; ok: boolean; report: unknown; count: string }>(
      `select id, ok, report, (select count(*) from reconciliation_report) as count from reconciliation_report order by created_at desc limit 1`,
    );
    const row = rows.rows[0];
    if (row && row.count !== before) return row;
    await sleep(1_000);
  }
  return undefined;
}
