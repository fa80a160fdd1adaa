/**
 * A worker that dies mid-broadcast, for test/integration/evm-chain.test.ts: runs one
 * EvmChainAdapter.broadcast and, at the point named by EVM_CRASH_AT (after the signed
 * transaction is committed, or after it is sent), prints CRASH_POINT and waits to be killed
 * with SIGKILL, so nothing after that point ever runs.
 */
import pg from 'pg';
import type { Hex } from 'viem';
import type { BroadcastRequest } from '../../activities/adapters/chain/chain-adapter';
import { EvmChainAdapter } from '../../activities/adapters/chain/evm/evm-chain.adapter';
import type { EvmNetworkConfig } from '../../activities/adapters/chain/evm/evm-network-config';

const CRASH_POINT = 'CRASH_POINT';

export interface CrashingBroadcastInput {
  databaseUrl: string;
  crashAt: 'afterSigning' | 'afterSending';
  /** Bigints as decimal strings (JSON has none). */
  network: Omit<EvmNetworkConfig, 'maxFeePerGasCapWei'> & { maxFeePerGasCapWei: string; hotWalletPrivateKey: Hex };
  request: BroadcastRequest;
}

async function main(): Promise<void> {
  const input = JSON.parse(process.env.EVM_CRASHING_BROADCAST ?? '') as CrashingBroadcastInput;
  const pool = new pg.Pool({ connectionString: input.databaseUrl, max: 2 });
  const crash = async () => {
    process.stdout.write(`${CRASH_POINT}\n`);
    await new Promise(() => undefined);
  };
  const adapter = new EvmChainAdapter({
    pool,
    networks: { ethereum: { ...input.network, maxFeePerGasCapWei: BigInt(input.network.maxFeePerGasCapWei) } },
    testSeams: input.crashAt === 'afterSigning' ? { afterSigning: crash } : { afterSending: crash },
  });
  await adapter.broadcast(input.request);
  throw new Error(`broadcast returned: the crash point ${input.crashAt} was never reached`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
