import { randomUUID } from 'node:crypto';
import { UtxoRpc } from '../activities/adapters/chain/utxo/utxo-rpc';
import { withdrawalAddressProblem } from '../core/address-validation';
import { NETWORK_DECLARATIONS } from '../core/networks';
import type { UtxoNetwork } from '../core/networks';
import type { Settings } from '../core/settings';
import type { AuditEntry } from '../db/services/operator-audit.service';
import { readDevelopmentUtxoChain } from '../dev/development-utxo-chains';
import { fundFromFaucet } from '../dev/utxo-faucet';
import { UTXO_NODE_KIND, developmentUtxoNodeUrl } from '../dev/utxo-node';
import type { UtxoNodeNetwork } from '../dev/utxo-node';
import { OperatorActionRefused } from '../operations/operator/operator-refusal';
import { CliFailure, UsageMistake } from './ops-command';

/** `chain info` and `chain fund` on the UTXO networks: a configured node, or `npm start`'s regtest chain of this data folder. */

/** The UTXO networks `npm start` runs a regtest chain for. */
function developmentUtxoNetwork(network: UtxoNetwork): UtxoNodeNetwork | undefined {
  return network === 'bitcoin' || network === 'litecoin' ? network : undefined;
}

/** The configured node of a UTXO network, else `npm start`'s regtest chain of this data folder. */
function utxoNodeOf(settings: Settings, network: UtxoNetwork) {
  const configured = settings.utxoNetworks[network];
  if (configured) return { rpcUrl: configured.rpcUrl, origin: 'configured' as const, hotWalletAddress: null };
  const local = developmentUtxoNetwork(network);
  if (settings.development.chain !== 'local-evm' || !local) return undefined;
  const development = readDevelopmentUtxoChain(settings.development.dataDir, local);
  if (!development) return undefined;
  const port = local === 'bitcoin' ? settings.development.utxoNodeBitcoinPort : settings.development.utxoNodeLitecoinPort;
  return {
    rpcUrl: developmentUtxoNodeUrl(settings.development.host, port),
    origin: 'development chain' as const,
    hotWalletAddress: development.hotWalletAddress,
    local,
  };
}

export async function utxoNetworkInfo(settings: Settings, network: UtxoNetwork) {
  const family = NETWORK_DECLARATIONS[network].family;
  const node = utxoNodeOf(settings, network);
  if (!node) return { network, family, real: false, node: null };
  const rpc = new UtxoRpc(node.rpcUrl);
  let identity: { chain: string; genesisHash: string } | { unreachable: string };
  try {
    const info = await rpc.call<{ chain?: unknown }>('getblockchaininfo');
    identity = { chain: String(info?.chain), genesisHash: await rpc.genesisHash() };
  } catch (error) {
    identity = {
      unreachable: `the ${network} node (${node.origin}) did not answer: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const development = node.origin === 'development chain';
  return {
    network,
    family,
    real: true,
    node: {
      kind: development ? `${UTXO_NODE_KIND[node.local]} (npm start's regtest chain)` : 'configured (UTXO_RPC_URL)',
      // With the development credentials: shown for the local regtest chain only.
      rpcUrl: development ? node.rpcUrl : null,
      ...identity,
    },
    hotWalletAddress: node.hotWalletAddress,
  };
}

/** Test funds from the faucet of `npm start`'s regtest chain (and a block mined to confirm them); refused on any other chain. */
export async function fundOnRegtest(
  settings: Settings,
  network: UtxoNetwork,
  address: string,
  units: bigint,
  amountText: string,
): Promise<{ output: object; audit: AuditEntry }> {
  const node = utxoNodeOf(settings, network);
  if (!node || node.origin !== 'development chain')
    throw new OperatorActionRefused(
      'not-development-chain',
      `chain fund sends test funds on npm start's local regtest chains only, and DATA_DIR (${settings.development.dataDir}) holds none for ${network}${node ? ' (its node is a configured one)' : ''}`,
    );
  const rpc = new UtxoRpc(node.rpcUrl);
  const info = await rpc.call<{ chain?: unknown }>('getblockchaininfo').catch((error: unknown) => {
    throw new CliFailure({
      error: 'chain-unreachable',
      message: `the ${network} node (development chain) did not answer: ${String(error)}`,
    });
  });
  if (info?.chain !== 'regtest')
    throw new OperatorActionRefused(
      'not-development-chain',
      `the ${network} node is on ${String(info?.chain)}, not regtest: chain fund sends test funds there only`,
    );
  const problem = withdrawalAddressProblem(NETWORK_DECLARATIONS[network].nativeCurrency, network, 'regtest', address, 'address');
  if (problem !== undefined) throw new UsageMistake(`--address: ${problem}`);
  const transactionHash = await fundFromFaucet(rpc, node.local, address, units);
  const output = {
    network,
    currency: NETWORK_DECLARATIONS[network].nativeCurrency,
    amount: amountText.includes('.') ? amountText.replace(/\.?0+$/, '') : amountText,
    address,
    transactionHash,
    blockNumber: String(await rpc.blockCount()),
  };
  return {
    output,
    audit: { action: 'chain-fund', subject: { type: 'chain-transfer', id: randomUUID(), partnerId: null }, details: { ...output } },
  };
}
