import type pg from 'pg';
import { Gauge } from 'prom-client';
import type { LabelValues, Registry } from 'prom-client';
import type { Logger } from '../../core/logger';
import { errorFields } from '../../core/logger';
import { countOperationsByStatus, findLatestReconciliationSummary, sumHeldFundsByCurrency } from '../../db/queries/metrics.queries';
import type { HeldFundsRow, LatestReconciliationRow, OperationCountRow } from '../../db/queries/metrics.queries';
import { withTimeout } from '../with-timeout';

/** Scrapes from several Prometheus servers (or a reload of a dashboard) share one read. */
const SNAPSHOT_CACHE_MS = 5_000;
/** A scrape never waits longer than this on Postgres: the gauges are left out instead. */
const QUERY_TIMEOUT_MS = 2_000;

interface Snapshot {
  operations: OperationCountRow[];
  held: HeldFundsRow[];
  reconciliation: LatestReconciliationRow | undefined;
}

/** Gauges read from Postgres per scrape; a failed read leaves them absent, never stale (payments_metrics_database_read_failed: 1). */
export function registerLedgerGauges(registry: Registry, pool: pg.Pool, log: Logger): void {
  let cached: { atMs: number; snapshot: Promise<Snapshot | undefined> } | undefined;
  let failing = false;

  const read = async (): Promise<Snapshot | undefined> => {
    try {
      const [operations, held, reconciliation] = await withTimeout(
        Promise.all([countOperationsByStatus(pool), sumHeldFundsByCurrency(pool), findLatestReconciliationSummary(pool)]),
        QUERY_TIMEOUT_MS,
      );
      if (failing) log.info('metrics: database gauges readable again');
      failing = false;
      return { operations, held, reconciliation };
    } catch (error) {
      if (!failing) log.warn('metrics: database gauges unreadable; left out until the database answers', errorFields(error, false));
      failing = true;
      return undefined;
    }
  };
  // A failed read is cached too: one scrape asks once, however many gauges it collects.
  const snapshot = (): Promise<Snapshot | undefined> => {
    const nowMs = Date.now();
    if (!cached || nowMs - cached.atMs > SNAPSHOT_CACHE_MS) cached = { atMs: nowMs, snapshot: read() };
    return cached.snapshot;
  };

  /** A gauge whose series are set afresh from the snapshot on every scrape. */
  const gauge = (name: string, help: string, labelNames: string[], series: (current?: Snapshot) => Array<[LabelValues<string>, number]>) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        const current = await snapshot();
        this.reset();
        for (const [labels, value] of series(current)) this.set(labels, value);
      },
    });

  gauge(
    'payments_metrics_database_read_failed',
    '1 when the database gauges could not be read (they are then absent), else 0',
    [],
    (current) => [[{}, current === undefined ? 1 : 0]],
  );
  gauge('payments_operations', 'Operations by type and status, as stored in Postgres', ['operation', 'status'], (current) =>
    (current?.operations ?? []).map((row) => [{ operation: row.operation, status: row.status }, row.count]),
  );
  // A float for charts only: money is never computed from a metric.
  gauge('payments_funds_held', 'Funds held by pending reservations, per currency (in units of the currency)', ['currency'], (current) =>
    (current?.held ?? []).map((row) => [{ currency: row.currency }, Number(row.held)]),
  );
  gauge(
    'payments_reconciliation_findings',
    'Findings of the latest reconciliation report, per kind (0 everywhere when the books hold)',
    ['kind'],
    (current) => Object.entries(current?.reconciliation?.findings ?? {}).map(([kind, count]) => [{ kind }, count]),
  );
  gauge(
    'payments_reconciliation_last_report_timestamp_seconds',
    'When the latest reconciliation report was written (Unix time; 0 before the first report)',
    [],
    (current) => (current?.reconciliation ? [[{}, current.reconciliation.created_at.getTime() / 1000]] : []),
  );
}
