import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { HDKey } from '@scure/bip32';
import { UtxoHotWallet } from '../activities/adapters/chain/utxo/utxo-hot-wallet';
import type { Logger } from '../core/logger';
import { freePort } from '../dev/free-port';
import { faucetAddress, fundFromFaucet } from '../dev/utxo-faucet';
import { startUtxoNode } from '../dev/utxo-node';
import type { Lifecycle } from './lifecycle';

/** A block a second: a btc withdrawal settles at its first confirmation, so its time is mostly the wait for the next block. */
export const BENCH_BLOCK_INTERVAL_MS = 1_000;
/** Coins of 1 btc: more than 8 callers take while their change waits a block to be confirmed. */
const HOT_WALLET_COINS = 40;
const TESTNET_VERSIONS = { private: 0x04358394, public: 0x043587cf };

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
  let node;
  try {
    node = await startUtxoNode({
      network: 'bitcoin',
      dir: path.join(dataDir, 'regtest-bitcoin'),
      host: '127.0.0.1',
      rpcPort: await freePort(),
      miningAddress: faucetAddress('bitcoin'),
      blockIntervalMs: BENCH_BLOCK_INTERVAL_MS,
      log,
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    log.warn(`no btcd for the btc withdrawal row: ${reason}`);
    return reason;
  }
  lifecycle.add('btcd', () => node.stop());
  const hotWalletKey = HDKey.fromMasterSeed(randomBytes(32), TESTNET_VERSIONS).derive("m/84'/1'/0'").privateExtendedKey;
  const wallet = new UtxoHotWallet('bitcoin', hotWalletKey, 'regtest');
  for (let coin = 0; coin < HOT_WALLET_COINS; coin += 1) await fundFromFaucet(node.rpc, 'bitcoin', wallet.receivingAddress, 100_000_000n);
  log.info(`btcd in regtest at ${node.rpcUrl}: a block every ${BENCH_BLOCK_INTERVAL_MS} ms; hot wallet ${wallet.receivingAddress}`);
  return {
    workerEnv: {
      UTXO_RPC_URL_BITCOIN: node.rpcUrl,
      UTXO_HOT_WALLET_KEY_BITCOIN: hotWalletKey,
      UTXO_CONFIRMATIONS_BITCOIN: '1',
    },
    hotWalletAddress: wallet.receivingAddress,
  };
}
