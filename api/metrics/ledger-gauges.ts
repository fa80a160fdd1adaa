import type pg from 'pg';
import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { Logger } from '../../core/logger';
import { errorFields } from '../../core/logger';
import { countOperationsByStatus, findLatestReconciliationSummary, sumHeldFundsByCurrency } from '../../db/queries/metrics.queries';
import type { HeldFundsRow, LatestReconciliationRow, OperationCountRow } from '../../db/queries/metrics.queries';

/** Scrapes from several Prometheus servers (or a reload of a dashboard) share one read. */
const SNAPSHOT_CACHE_MS = 5_000;
/** A scrape never waits longer than this on Postgres: the gauges are left out instead. */
const QUERY_TIMEOUT_MS = 2_000;

interface Snapshot {
  operations: OperationCountRow[];
  held: HeldFundsRow[];
  reconciliation: LatestReconciliationRow | undefined;
}

/**
 * Gauges read from Postgres when Prometheus scrapes: operations by type and status, funds held
 * by currency, and the latest reconciliation report. A failed read leaves them empty (Prometheus
 * sees the series vanish, never a stale value) and payments_metrics_database_read_failed says so.
 */
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

  new Gauge({
    name: 'payments_metrics_database_read_failed',
    help: '1 when the database gauges could not be read (they are then absent), else 0',
    registers: [registry],
    async collect() {
      this.set((await snapshot()) === undefined ? 1 : 0);
    },
  });

  new Gauge({
    name: 'payments_operations',
    help: 'Operations by type and status, as stored in Postgres',
    labelNames: ['operation', 'status'] as const,
    registers: [registry],
    async collect() {
      const current = await snapshot();
      this.reset();
      for (const row of current?.operations ?? []) this.set({ operation: row.operation, status: row.status }, row.count);
    },
  });

  new Gauge({
    name: 'payments_funds_held',
    // A float for charts only: money is never computed from a metric.
    help: 'Funds held by pending reservations, per currency (in units of the currency)',
    labelNames: ['currency'] as const,
    registers: [registry],
    async collect() {
      const current = await snapshot();
      this.reset();
      for (const row of current?.held ?? []) this.set({ currency: row.currency }, Number(row.held));
    },
  });

  new Gauge({
    name: 'payments_reconciliation_findings',
    help: 'Findings of the latest reconciliation report, per kind (0 everywhere when the books hold)',
    labelNames: ['kind'] as const,
    registers: [registry],
    async collect() {
      const current = await snapshot();
      this.reset();
      for (const [kind, count] of Object.entries(current?.reconciliation?.findings ?? {})) this.set({ kind }, count);
    },
  });

  new Gauge({
    name: 'payments_reconciliation_last_report_timestamp_seconds',
    help: 'When the latest reconciliation report was written (Unix time; 0 before the first report)',
    registers: [registry],
    async collect() {
      const report = (await snapshot())?.reconciliation;
      this.reset();
      if (report) this.set(report.created_at.getTime() / 1000);
    },
  });
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
