import fs from 'node:fs';
import path from 'node:path';
import { HDKey } from '@scure/bip32';
import type pg from 'pg';
import type { Logger } from '../core/logger';
import type { UtxoNetworkSettings } from '../core/settings';
import { fundFromFaucet, faucetAddress } from './utxo-faucet';
import { INITIAL_HEIGHT, startUtxoNode, utxoNodeProblem } from './utxo-node';
import type { RunningUtxoNode, UtxoNodeNetwork } from './utxo-node';
import { UtxoHotWallet } from '../activities/adapters/chain/utxo/utxo-hot-wallet';

/**
 * `npm start`'s regtest chains for the UTXO networks it can have a node for (btcd for bitcoin, Litecoin Core for litecoin),
 * kept in DATA_DIR like the EVM ones: network_config says regtest for them, their hot wallet is derived from the development
 * deposit seed (account 1', apart from the deposit account 0') and funded from the faucet on a new chain, and a block is
 * mined every BLOCK_INTERVAL_MS. A network whose node cannot be had stays simulated; the banner says why and how to get it.
 */
export const UTXO_DEVELOPMENT_NETWORKS: readonly UtxoNodeNetwork[] = ['bitcoin', 'litecoin'];
const BLOCK_INTERVAL_MS = 5_000;
/**
 * What a new chain's hot wallet starts with: ten coins, so several withdrawals can start at once, worth more than the demo
 * partner holds (2.5 btc, 300 ltc), so custody reconciliation finds no shortfall.
 */
const HOT_WALLET_COINS = 10;
const HOT_WALLET_COIN: Record<UtxoNodeNetwork, bigint> = { bitcoin: 100_000_000n, litecoin: 5_000_000_000n };
const TESTNET_VERSIONS = { private: 0x04358394, public: 0x043587cf };

export interface DevelopmentUtxoChains {
  nodes: RunningUtxoNode[];
  settings: Partial<Record<UtxoNodeNetwork, UtxoNetworkSettings>>;
  /** One banner line per network: where it runs, or why it is simulated. */
  lines: string[];
}

/** What `npm run ops` reads of a regtest chain `npm start` made here (it holds no seed): the hot wallet's address. */
const MARKER = 'development-chain.json';

export function readDevelopmentUtxoChain(dataDir: string, network: UtxoNodeNetwork): { hotWalletAddress: string } | undefined {
  try {
    const marker = JSON.parse(fs.readFileSync(path.join(developmentUtxoChainDir(dataDir, network), MARKER), 'utf8')) as {
      hotWalletAddress?: unknown;
    };
    return typeof marker.hotWalletAddress === 'string' ? { hotWalletAddress: marker.hotWalletAddress } : undefined;
  } catch {
    return undefined;
  }
}

export function developmentUtxoChainDir(dataDir: string, network: UtxoNodeNetwork): string {
  return path.join(dataDir, `regtest-${network}`);
}

/** The hot wallet's account key of the development seed: m/84'/1'/1'. */
export function developmentHotWalletKey(seed: Uint8Array): string {
  return HDKey.fromMasterSeed(seed, TESTNET_VERSIONS).derive("m/84'/1'/1'").privateExtendedKey;
}

export async function startDevelopmentUtxoChains(options: {
  dataDir: string;
  host: string;
  ports: Record<UtxoNodeNetwork, number>;
  /** BTCD_PATH, LITECOIND_PATH: a binary of one's own. */
  binaries: Partial<Record<UtxoNodeNetwork, string | undefined>>;
  seed: Uint8Array;
  pool: pg.Pool;
  log: Logger;
  onStarted: (node: RunningUtxoNode) => void;
}): Promise<DevelopmentUtxoChains> {
  const result: DevelopmentUtxoChains = { nodes: [], settings: {}, lines: [] };
  for (const network of UTXO_DEVELOPMENT_NETWORKS) {
    const binary = options.binaries[network];
    const problem = utxoNodeProblem(network, binary);
    if (problem !== undefined) {
      result.lines.push(`${network}: simulated: ${problem}`);
      continue;
    }
    const dir = developmentUtxoChainDir(options.dataDir, network);
    const node = await startUtxoNode({
      network,
      dir,
      host: options.host,
      rpcPort: options.ports[network],
      miningAddress: faucetAddress(network),
      blockIntervalMs: BLOCK_INTERVAL_MS,
      log: options.log,
      binary,
    });
    options.onStarted(node);
    result.nodes.push(node);
    await options.pool.query(`update network_config set chain = 'regtest' where network = $1`, [network]);
    const hotWalletKey = developmentHotWalletKey(options.seed);
    const wallet = new UtxoHotWallet(network, hotWalletKey, 'regtest');
    // A new chain (just mined to its initial height): the hot wallet gets its coins.
    if ((await node.rpc.blockCount()) <= INITIAL_HEIGHT) {
      for (let coin = 0; coin < HOT_WALLET_COINS; coin += 1)
        await fundFromFaucet(node.rpc, network, wallet.receivingAddress, HOT_WALLET_COIN[network]);
    }
    result.settings[network] = {
      rpcUrl: node.rpcUrl,
      hotWalletKey,
      requiredConfirmations: 2,
      feeRateFloor: 2,
      feeRateCeiling: 500,
      scanFromHeight: 0,
      replaceAfterMs: 60_000,
    };
    fs.writeFileSync(path.join(dir, MARKER), `${JSON.stringify({ hotWalletAddress: wallet.receivingAddress })}\n`);
    result.lines.push(`${network}: ${node.kind} in regtest at ${node.rpcUrl}, in ${dir}; hot wallet ${wallet.receivingAddress}`);
  }
  return result;
}
