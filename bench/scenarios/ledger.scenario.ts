import { withClient } from '../database';
import { openPlainSqlLedger } from '../ceiling/plain-sql-transfer';
import { runClosedLoop } from '../load/closed-loop';
import { atLeast, perSecond, reportRow } from '../report';
import type { ReportRow } from '../report';
import { accountOf, createBenchPartners } from './fixtures';
import { runPair } from './pairs';
import type { BenchContext, PairOutcome } from './pairs';
import { openProjectLedger } from './project-transfer';

export const LEDGER_CALLERS = [1, 4, 16] as const;
/** The one-commit comparison, at the ends of the curve (the run stays under five minutes). */
const DIRECT_POST_CALLERS: readonly number[] = [1, 16];
const MAX_CALLERS = Math.max(...LEDGER_CALLERS);
const TRANSFER_AMOUNT = '0.01';

export interface LedgerScenarioResult {
  rows: ReportRow[];
  outcomes: Record<string, PairOutcome>;
}

/**
 * The project's reserve + post against the plain-SQL transfer, at 1, 4 and 16 callers. Each
 * caller has a partner of its own (its own source account) on both sides; the project's money
 * goes to the CRYPTO_WITHDRAWALS system account, as a withdrawal's does, the ceiling's to the
 * caller's own destination row.
 */
export async function runLedgerScenario(context: BenchContext): Promise<LedgerScenarioResult> {
  const { databaseUrl, databaseAdminUrl } = context.stack;
  const partners = await createBenchPartners(context.orm, 'ledger', MAX_CALLERS, { eth: '100000' });
  const sources = partners.map((partner) => accountOf(partner, 'eth'));
  const sink = await systemAccountId(databaseUrl, 'CRYPTO_WITHDRAWALS', 'eth');
  const [firstSource] = sources;
  if (firstSource === undefined) throw new Error('no ledger partners');
  const project = openProjectLedger(databaseUrl, MAX_CALLERS);
  // The ceiling's own database: creating one takes more than payments_app may do.
  const ceiling = await openPlainSqlLedger(databaseAdminUrl, MAX_CALLERS, MAX_CALLERS);
  try {
    const rows: ReportRow[] = [];
    const outcomes: Record<string, PairOutcome> = {};
    const measure = async (name: string, callersList: readonly number[], transfer: (source: string) => Promise<void>) => {
      for (const callers of callersList) {
        const { signal } = context.lifecycle;
        const outcome = await runPair(
          context,
          `ledger ${name}, ${callers} callers`,
          (durationMs) => runClosedLoop({ callers, durationMs, signal, call: (caller) => transfer(sources[caller] ?? firstSource) }),
          (durationMs) => runClosedLoop({ callers, durationMs, signal, call: (caller) => ceiling.transfer(caller, TRANSFER_AMOUNT) }),
          context.profile.ledgerMs,
        );
        outcomes[`${name}, ${callers} callers`] = outcome;
        rows.push(
          reportRow({
            scenario: `ledger ${name}, ${callers} caller${callers === 1 ? '' : 's'}`,
            figure: perSecond(outcome.project.perSecond, 'transfers'),
            ceiling: `plain-SQL transfer: ${perSecond(outcome.ceiling.perSecond, 'transfers')}`,
            ratio: outcome.project.perSecond / outcome.ceiling.perSecond,
            p50Ms: outcome.project.p50Ms,
            p99Ms: outcome.project.p99Ms,
            goal: atLeast(1),
          }),
        );
      }
    };
    await measure('reserve + post', LEDGER_CALLERS, (source) => project.reserveAndPost(source, sink, TRANSFER_AMOUNT));
    await measure('transfer posted at once (one commit, like the ceiling)', DIRECT_POST_CALLERS, (source) =>
      project.postDirectly(source, sink, TRANSFER_AMOUNT),
    );
    return { rows, outcomes };
  } finally {
    await project.close();
    await ceiling.close();
  }
}

async function systemAccountId(databaseUrl: string, code: string, currency: string): Promise<string> {
  const result = await withClient(databaseUrl, (client) =>
    client.query<{ id: string }>(
      `select id from account where kind = 'SYSTEM' and system_code = $1 and currency = $2 order by id limit 1`,
      [code, currency],
    ),
  );
  const id = result.rows[0]?.id;
  if (!id) throw new Error(`no system account ${code}/${currency}`);
  return id;
}
