import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { HDKey } from '@scure/bip32';
import { UtxoHotWallet } from '../activities/adapters/chain/utxo/utxo-hot-wallet';
import { chainParameters } from '../core/chain-parameters';
import type { Logger } from '../core/logger';
import { NETWORK_DECLARATIONS } from '../core/networks';
import { freePort } from './free-port';
import { faucetAddress, fundFromFaucet } from './utxo-faucet';
import { startUtxoNode } from './utxo-node';
import type { RunningUtxoNode, UtxoNodeNetwork } from './utxo-node';

/** One coin in base units (satoshis, litoshis). */
const ONE_COIN = 100_000_000n;

export interface FundedRegtestChain {
  node: RunningUtxoNode;
  /** The hot wallet's BIP84 account (m/84'/1'/0' of a fresh seed): UTXO_HOT_WALLET_KEY_<NETWORK>. */
  hotWalletKey: string;
  hotWalletAddress: string;
}

/**
 * A regtest node of the network in `dir` (btcd built with Go on first use, or Debian's litecoind, as `npm start`'s), mining
 * a block every `blockIntervalMs`, and a fresh hot wallet holding `coins` coins of one each from the faucet: what the bench,
 * the fault campaign and the chaos run pay withdrawals on. The caller stops the node.
 */
export async function startFundedRegtestChain(options: {
  network: UtxoNodeNetwork;
  dir: string;
  blockIntervalMs: number;
  coins: number;
  log: Logger;
}): Promise<FundedRegtestChain> {
  const { network } = options;
  const node = await startUtxoNode({
    network,
    dir: path.join(options.dir, `regtest-${network}`),
    host: '127.0.0.1',
    rpcPort: await freePort(),
    miningAddress: faucetAddress(network),
    blockIntervalMs: options.blockIntervalMs,
    log: options.log,
  });
  try {
    const { bip32 } = chainParameters(NETWORK_DECLARATIONS[network].depositKeys.family, 'regtest');
    const hotWalletKey = HDKey.fromMasterSeed(randomBytes(32), bip32).derive("m/84'/1'/0'").privateExtendedKey;
    const wallet = new UtxoHotWallet(network, hotWalletKey, 'regtest');
    for (let coin = 0; coin < options.coins; coin += 1) await fundFromFaucet(node.rpc, network, wallet.receivingAddress, ONE_COIN);
    return { node, hotWalletKey, hotWalletAddress: wallet.receivingAddress };
  } catch (error) {
    await node.stop();
    throw error;
  }
}
