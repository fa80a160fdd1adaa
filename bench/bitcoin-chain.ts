import type { Logger } from '../core/logger';
import { startFundedRegtestChain } from '../dev/funded-regtest-chain';
import type { Lifecycle } from './lifecycle';

/** A block a second: a btc withdrawal settles at its first confirmation, so its time is mostly the wait for the next block. */
export const BENCH_BLOCK_INTERVAL_MS = 1_000;
/** Coins of 1 btc: more than 8 callers take while their change waits a block to be confirmed. */
const HOT_WALLET_COINS = 40;

export interface BenchBitcoin {
  /** The worker's settings that make bitcoin real: the node, a hot wallet of its own, one confirmation. */
  workerEnv: Record<string, string>;
  hotWalletAddress: string;
}

/**
 * Bitcoin for the btc withdrawal row: a btcd regtest node (built with Go on first use, as `npm start`'s) in the run's folder,
 * mining a block a second, and a fresh hot wallet funded from the faucet. Undefined, with the reason logged, when btcd
 * cannot be had: the row then says so.
 */
export async function startBenchBitcoin(lifecycle: Lifecycle, dataDir: string, log: Logger): Promise<BenchBitcoin | string> {
  let bitcoin;
  try {
    bitcoin = await startFundedRegtestChain({
      network: 'bitcoin',
      dir: dataDir,
      blockIntervalMs: BENCH_BLOCK_INTERVAL_MS,
      coins: HOT_WALLET_COINS,
      log,
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    log.warn(`no btcd for the btc withdrawal row: ${reason}`);
    return reason;
  }
  lifecycle.add('btcd', () => bitcoin.node.stop());
  log.info(
    `btcd in regtest at ${bitcoin.node.rpcUrl}: a block every ${BENCH_BLOCK_INTERVAL_MS} ms; hot wallet ${bitcoin.hotWalletAddress}`,
  );
  return {
    workerEnv: {
      UTXO_RPC_URL_BITCOIN: bitcoin.node.rpcUrl,
      UTXO_HOT_WALLET_KEY_BITCOIN: bitcoin.hotWalletKey,
      UTXO_CONFIRMATIONS_BITCOIN: '1',
    },
    hotWalletAddress: bitcoin.hotWalletAddress,
  };
}
