import type pg from 'pg';
import { assertInvariant } from '../../core/errors';
import type { OperationTypeFacts } from '../../core/operation-types';

/** The operations a workflow can move money for (the kinds of their ledger transfers). */
export type AcceptedOperationKind = OperationTypeFacts['ledgerKind'];

/** What the API accepted, by the columns of the record its first money-moving step writes from it (never from the workflow). */
export interface AcceptedWithdrawal {
  user_id: string | null;
  currency: string;
  network: string;
  amount: string;
  fee: string;
  destination: string;
  memo: string | null;
  wallet_type: string;
  receiver_type: string;
  beneficiary_name: string;
  /** The amount at the rates of its acceptance: what it adds to the partner's daily limit. */
  amount_eur: string;
  /** The destination as the partner's address book matches it. */
  address_key: string;
}

export interface AcceptedSepaTransfer {
  amount: string;
  receiver_type: string;
  receiver_first_name: string | null;
  receiver_last_name: string | null;
  company_name: string | null;
  destination_iban: string;
  transfer_title: string;
}

export interface AcceptedExchange {
  lock_id: string;
  currency_from: string;
  currency_to: string;
  amount_from: string;
  /** When the API received it (ISO 8601): the lock must be valid at that moment. */
  requested_at: string;
}

export interface AcceptedOperation {
  id: string;
  kind: AcceptedOperationKind;
  partnerId: string;
  workflowId: string;
  request: AcceptedWithdrawal | AcceptedSepaTransfer | AcceptedExchange;
}

interface AcceptedOperationRow {
  kind: AcceptedOperationKind;
  partner_id: string;
  workflow_id: string;
}

/** Records what the API accepted, before it starts the workflow; a replay (same id) keeps the first record. */
export async function recordAcceptedOperation(pool: pg.Pool, operation: AcceptedOperation): Promise<void> {
  const inserted = await pool.query<AcceptedOperationRow>({
    name: 'record_accepted_operation',
    text: `insert into accepted_operation (id, kind, partner_id, workflow_id, request) values ($1, $2, $3, $4, $5::jsonb)
           on conflict (id) do nothing returning kind, partner_id, workflow_id`,
    values: [operation.id, operation.kind, operation.partnerId, operation.workflowId, JSON.stringify(operation.request)],
  });
  const row = inserted.rows[0] ?? (await findRow(pool, operation.id));
  assertInvariant(row, `accepted operation ${operation.id} is stored`);
  assertInvariant(
    row.kind === operation.kind && row.partner_id === operation.partnerId && row.workflow_id === operation.workflowId,
    `accepted operation ${operation.id} is the same ${operation.kind} of the same partner`,
  );
}

async function findRow(pool: pg.Pool, id: string): Promise<AcceptedOperationRow | undefined> {
  const found = await pool.query<AcceptedOperationRow>({
    name: 'find_accepted_operation',
    text: 'select kind, partner_id, workflow_id from accepted_operation where id = $1',
    values: [id],
  });
  return found.rows[0];
}

export interface UnknownOperation {
  workflowId: string;
  runId: string;
  workflowType: string;
  /** What the workflow input named as its operation id, cut to a bound: it may be anything. */
  operationId: string | null;
  reason: string;
}

/** Keeps a workflow refused as unknown, once per run (an activity may run twice). */
export async function recordUnknownOperation(pool: pg.Pool, refused: UnknownOperation): Promise<void> {
  await pool.query({
    name: 'record_refused_operation',
    text: `insert into refused_operation (workflow_id, run_id, workflow_type, operation_id, reason)
           values ($1, $2, $3, $4, $5) on conflict (workflow_id, run_id) do nothing`,
    values: [
      refused.workflowId.slice(0, 1000),
      refused.runId.slice(0, 100),
      refused.workflowType.slice(0, 200),
      refused.operationId?.slice(0, 200) ?? null,
      refused.reason.slice(0, 1000),
    ],
  });
}

export interface UnknownOperationRow {
  workflow_id: string;
  run_id: string;
  workflow_type: string;
  operation_id: string | null;
  reason: string;
  refused_at: string;
}

/** Workflows refused as unknown after `since` (the previous reconciliation report), oldest first, at most 100. */
export async function findUnknownOperationsSince(pool: pg.Pool, since: Date | null): Promise<UnknownOperationRow[]> {
  const result = await pool.query<UnknownOperationRow>(
    `select workflow_id, run_id, workflow_type, operation_id, reason, refused_at::text
       from refused_operation where refused_at > coalesce($1::timestamptz, '-infinity') order by refused_at limit 100`,
    [since],
  );
  return result.rows;
}
