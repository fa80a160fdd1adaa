import pg from 'pg';
import { Decimal } from '../../../../core/money';
import type { OperationLog } from '../load';
import { anomaly } from './anomalies';
import type { Anomaly } from './anomalies';
import type { ApiView } from './api-state';

/**
 * The simulated bank's own table, read directly: what reached the bank, with which amount and
 * creditor, and what it answered. Every payment there is a transfer some client was answered 2xx
 * about, with exactly the amount and IBAN it asked for; a SUCCESSFUL transfer is one the bank
 * settled, and a transfer the bank settled is SUCCESSFUL.
 */
export async function auditBank(
  databaseUrl: string,
  operations: readonly OperationLog[],
  view: ApiView,
): Promise<{ anomalies: Anomaly[]; payments: number }> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  let rows: Array<{ transfer_id: string; amount: string; creditor_iban: string; outcome: string }>;
  try {
    rows = (await pool.query('select transfer_id, amount::text, creditor_iban, outcome from simulated_bank_payment')).rows;
  } finally {
    await pool.end();
  }
  const transfers = new Map(
    operations
      .filter((operation) => operation.kind === 'sepa-transfer' && operation.operationId)
      .map((operation) => [operation.operationId!, operation]),
  );
  const statuses = new Map([...view.history.values()].flat().map((entry) => [entry.id, entry.status]));
  const anomalies: Anomaly[] = [];
  const paid = new Set<string>();
  for (const row of rows) {
    const operation = transfers.get(row.transfer_id);
    if (!operation) {
      anomalies.push(
        anomaly('phantom', `the bank got payment ${row.transfer_id} (${row.amount} EUR, ${row.outcome}), which no answered transfer names`),
      );
      continue;
    }
    paid.add(row.transfer_id);
    const at = { op: operation.op };
    if (!new Decimal(row.amount).equals(operation.amount) || row.creditor_iban !== operation.destination) {
      anomalies.push(
        anomaly(
          'wrong-balance',
          `transfer ${row.transfer_id}: the bank got ${row.amount} EUR to ${row.creditor_iban}, the client sent ${operation.amount} to ${operation.destination}`,
          at,
        ),
      );
    }
    const status = statuses.get(row.transfer_id);
    if ((row.outcome === 'SETTLED') !== (status === 'SUCCESSFUL')) {
      anomalies.push(
        anomaly(
          'wrong-state',
          `transfer ${row.transfer_id}: the bank ${row.outcome === 'SETTLED' ? 'settled' : 'rejected'} it, the API says ${status}`,
          at,
        ),
      );
    }
  }
  for (const [id, operation] of transfers) {
    if (statuses.get(id) === 'SUCCESSFUL' && !paid.has(id)) {
      anomalies.push(anomaly('lost', `transfer ${id} is SUCCESSFUL but never reached the bank`, { op: operation.op }));
    }
  }
  return { anomalies, payments: rows.length };
}
