/**
 * A worker that dies mid-sweep, for test/integration/evm-sweep-activities.test.ts: runs
 * advanceEvmSweep (step after step, as the workflow would) and, at the point named by crashAt
 * (after the sweep's transaction is committed, or after it is sent), prints CRASH_POINT and waits
 * to be killed with SIGKILL, so nothing after that point ever runs.
 */
import pg from 'pg';
import type { Hex } from 'viem';
import { EvmSweeper } from '../../activities/adapters/chain/evm/evm-sweeper';
import type { EvmNetworkConfig } from '../../activities/adapters/chain/evm/evm-network-config';
import { createEvmSweepActivities } from '../../activities/evm-sweep.activities';
import { systemClock } from '../../core/clock';
import { depositSigningKeys } from '../../core/deposit-seed';
import { createLogger } from '../../core/logger';

const CRASH_POINT = 'CRASH_POINT';

export interface CrashingSweepInput {
  databaseUrl: string;
  crashAt: 'afterSigning' | 'afterSending';
  seed: string;
  /** Bigints as decimal strings (JSON has none). */
  network: Omit<EvmNetworkConfig, 'maxFeePerGasCapWei'> & { maxFeePerGasCapWei: string; hotWalletPrivateKey: Hex };
  sweepId: string;
}

async function main(): Promise<void> {
  const input = JSON.parse(process.env.EVM_CRASHING_SWEEP ?? '') as CrashingSweepInput;
  const pool = new pg.Pool({ connectionString: input.databaseUrl, max: 2 });
  const crash = async () => {
    process.stdout.write(`${CRASH_POINT}\n`);
    await new Promise(() => undefined);
  };
  const sweeper = new EvmSweeper({
    pool,
    networks: { polygon: { ...input.network, maxFeePerGasCapWei: BigInt(input.network.maxFeePerGasCapWei) } },
    accountKey: depositSigningKeys({ evm: input.seed }).accountKey('evm', 'mainnet')!,
    testSeams: input.crashAt === 'afterSigning' ? { afterSigning: crash } : { afterSending: crash },
  });
  const activities = createEvmSweepActivities({
    pool,
    clock: systemClock,
    log: createLogger('crashing-sweep', 'error'),
    evmSweeps: { sweeper, thresholds: { eth: '0', pol: '0', usdc: '0' }, pollIntervalMs: 100 },
  });
  for (let step = 0; step < 100; step += 1) {
    const progress = await activities.advanceEvmSweep({ sweepId: input.sweepId });
    if (progress.status !== 'IN_FLIGHT') throw new Error(`the sweep ended ${progress.status} before the crash point ${input.crashAt}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the crash point ${input.crashAt} was never reached`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
