import type pg from 'pg';

/* What the API's /metrics reads at scrape time: small, read-only, safe on a replica. */

export interface OperationCountRow {
  operation: 'exchange' | 'crypto-withdrawal' | 'sepa-transfer';
  status: string;
  count: number;
}

/** Operations by type and status. */
export async function countOperationsByStatus(pool: pg.Pool): Promise<OperationCountRow[]> {
  const result = await pool.query<OperationCountRow>(
    `select 'exchange' as operation, status, count(*)::int as count from exchange group by status
     union all
     select 'crypto-withdrawal', status, count(*)::int from crypto_withdrawal group by status
     union all
     select 'sepa-transfer', status, count(*)::int from sepa_transfer group by status`,
  );
  return result.rows;
}

export interface HeldFundsRow {
  currency: string;
  /** Exact decimal text. */
  held: string;
}

/** Funds held per currency, from the partner accounts' cached pending amounts: cheap however many postings there are. */
export async function sumHeldFundsByCurrency(pool: pg.Pool): Promise<HeldFundsRow[]> {
  const result = await pool.query<HeldFundsRow>(
    `select currency, sum(pending_out_amount)::text as held from account where kind = 'PARTNER' group by currency order by currency`,
  );
  return result.rows;
}

export interface LatestReconciliationRow {
  created_at: Date;
  ok: boolean;
  /** Findings per kind: the length of each list in the report. */
  findings: Record<string, number>;
}

/** The latest reconciliation report, summarised (its created_at index finds it). */
export async function findLatestReconciliationSummary(pool: pg.Pool): Promise<LatestReconciliationRow | undefined> {
  const result = await pool.query<LatestReconciliationRow>(
    `select r.created_at, r.ok,
            (select coalesce(jsonb_object_agg(key, jsonb_array_length(value)), '{}'::jsonb)
               from jsonb_each(r.report) where jsonb_typeof(value) = 'array') as findings
       from reconciliation_report r order by r.created_at desc limit 1`,
  );
  return result.rows[0];
}
