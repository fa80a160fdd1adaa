import { randomBytes } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import * as bitcoin from 'bitcoinjs-lib';
import { cryptoWithdrawalContract } from '../../contracts';
import type { OperationProgress } from '../../contracts';
import { chainParameters } from '../../core/chain-parameters';
import { BENCH_BLOCK_INTERVAL_MS } from '../bitcoin-chain';
import { runClosedLoop } from '../load/closed-loop';
import type { RunResult } from '../load/run-result';
import { milliseconds, perSecond, reportRow } from '../report';
import type { ReportRow } from '../report';
import { createBenchPartners } from './fixtures';
import type { BenchContext } from './pairs';
import { ANSWERED, OUTGOING_CALLERS, WITHDRAWAL, expectJson, pick, post } from './workflow.scenarios';

/** Long enough for a few blocks' worth of settlements per caller, whatever the profile. */
const BTC_RUN_MS = { short: 20_000, long: 60_000 } as const;

/**
 * btc withdrawal on a real regtest btcd (bench/bitcoin-chain.ts), a block a second, settled at one confirmation: through the
 * API as a partner calls it, each caller awaiting the early answer, then the settlement. No same-shape ceiling: most of a
 * settlement is the wait for the next block, which the ceiling column states instead.
 */
export async function runBtcWithdrawalScenario(
  context: BenchContext,
): Promise<{ rows: ReportRow[]; details: RunResult | Record<string, never>; notes: string[] }> {
  const scenario = `btc withdrawal settled, ${OUTGOING_CALLERS} callers (btcd regtest, 1 confirmation)`;
  const { bitcoin, apiUrl } = context.stack;
  if (typeof bitcoin === 'string') {
    const row = reportRow({ scenario, figure: '–', ceiling: `not run: ${bitcoin}`, ratio: null, p50Ms: null, p99Ms: null, goal: null });
    return { rows: [row], details: {}, notes: [] };
  }
  const partners = await createBenchPartners(context.orm, 'btc withdrawal', OUTGOING_CALLERS, { btc: '1000' });
  const destination = regtestAddress();
  const body = { ...WITHDRAWAL, currency: 'btc', amount: 0.001, walletAddress: destination };
  const outcome = await runClosedLoop({
    callers: OUTGOING_CALLERS,
    durationMs: BTC_RUN_MS[context.profile.name],
    signal: context.lifecycle.signal,
    call: async (caller, _prepared, mark) => {
      const answer = await expectJson(await post(`${apiUrl}/v1/partner/crypto-withdrawal`, pick(partners, caller), body), 200);
      mark(ANSWERED);
      const workflowId = cryptoWithdrawalContract.workflowId((answer as { withdrawalId: string }).withdrawalId);
      const progress = (await context.client.workflow.getHandle(workflowId).result()) as OperationProgress;
      if (progress.stage !== 'SETTLED') throw new Error(`${workflowId} ended ${progress.status} at ${progress.stage}`);
    },
  });
  const early = outcome.marks?.[ANSWERED];
  const blocks = `a block every ${BENCH_BLOCK_INTERVAL_MS} ms: each settlement waits for the next`;
  return {
    rows: [
      reportRow({
        scenario: `btc withdrawal early return, ${OUTGOING_CALLERS} callers (p50)`,
        figure: `p50 ${milliseconds(early?.p50Ms ?? null)}`,
        ceiling: 'the eth row above: the same steps to the early answer',
        ratio: null,
        p50Ms: early?.p50Ms ?? null,
        p99Ms: early?.p99Ms ?? null,
        goal: null,
      }),
      reportRow({
        scenario,
        figure: `${perSecond(outcome.perSecond, 'withdrawals')}${outcome.errors > 0 ? `, ${outcome.errors} failed (${outcome.firstError ?? ''})` : ''}`,
        ceiling: blocks,
        ratio: null,
        p50Ms: outcome.p50Ms,
        p99Ms: outcome.p99Ms,
        goal: null,
      }),
    ],
    details: outcome,
    notes: [
      `btc withdrawal: on a real btcd regtest node (bench/bitcoin-chain.ts), a block every ${BENCH_BLOCK_INTERVAL_MS} ms, settled at one confirmation: coin selection, signing and the stored bytes are in it, and the wait for a block is most of it.`,
    ],
  };
}

/** A fresh regtest P2WPKH address: the withdrawals' destination, nobody's wallet. */
function regtestAddress(): string {
  const key = HDKey.fromMasterSeed(randomBytes(32)).derive('m/0');
  return bitcoin.payments.p2wpkh({ pubkey: key.publicKey!, network: chainParameters('btc', 'regtest') }).address!;
}
