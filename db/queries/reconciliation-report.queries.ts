import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';

export interface ReconciliationReportRow {
  id: string;
  /** ISO 8601 in UTC, made by Postgres. */
  created_at: string;
  ok: boolean;
  /** The lists of findings (each capped at 100 rows) and the counts of holds checked. */
  report: Record<string, unknown>;
}

/** The newest reconciliation report (the created_at index finds it), or undefined before the first run. */
export async function findLatestReconciliationReport(em: EntityManager): Promise<ReconciliationReportRow | undefined> {
  const rows = await em.execute<ReconciliationReportRow[]>(
    `select id, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, ok, report
       from reconciliation_report order by reconciliation_report.created_at desc, id limit 1`,
  );
  return rows[0];
}

/** When the newest report was written, or null before the first: what a run looks at "since". */
export async function findLatestReportTime(pool: pg.Pool): Promise<Date | null> {
  const result = await pool.query<{ created_at: Date | null }>('select max(created_at) as created_at from reconciliation_report');
  return result.rows[0]?.created_at ?? null;
}
