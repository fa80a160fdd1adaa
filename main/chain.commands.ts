import { randomUUID } from 'node:crypto';
import { createPublicClient, createWalletClient, defineChain, getAddress, http, isAddress, parseAbi, parseUnits } from 'viem';
import type { Address, Chain, PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { z } from 'zod';
import { localUrl } from '../core/listen-address';
import type { Settings } from '../core/settings';
import { EVM_NETWORK_NAMES } from '../core/settings/declarations/rails';
import type { EvmNetworkName } from '../core/settings/declarations/rails';
import { findChainIdentities } from '../db/queries/evm-chain-identity.queries';
import type { ChainIdentity, RecordedChainIdentity } from '../db/queries/evm-chain-identity.queries';
import { CURRENCY_NETWORKS, NETWORKS, NETWORK_DECLARATIONS, defaultNetwork, isEvmNetwork } from '../core/networks';
import { DEVELOPMENT_CHAIN_IDS, developmentNodePort, readDevelopmentChain } from '../dev/development-chain';
import { GETH_VERSION } from '../dev/geth-build';
import { adoptChain } from '../operations/operator/chain-adoption';
import { fundOnRegtest, utxoNetworkInfo } from './chain-utxo.commands';
import { OperatorActionRefused } from '../operations/operator/operator-refusal';
import type { Command } from './ops-command';
import { CliFailure, command, UsageMistake } from './ops-command';

export const CHAIN_USAGE = `  chain info                             (each network: real or simulated, its node, chain id and genesis, hot wallet)
  chain identity                         (each EVM network's recorded chain, and the chain its node is on now)
  chain adopt --network ethereum|polygon --reason R
                                         (the node's chain becomes the network's recorded chain; refused while
                                          withdrawals signed on the recorded one are not final)
  chain fund --address A --currency btc|ltc|eth|pol|usdc [--network N] --amount N
                                         (development only: test funds from the faucet of npm start's local chain
                                          of the network, the currency's default when not given; on the regtest
                                          chains it mines a block to confirm them; refused on any other chain)`;

/** What one `chain fund` may send: enough for any test, bounded so a typo cannot drain the faucet. */
const FUND_LIMITS = {
  btc: { decimals: 8, max: 100n },
  ltc: { decimals: 8, max: 1_000n },
  eth: { decimals: 18, max: 1_000n },
  pol: { decimals: 18, max: 1_000_000n },
  usdc: { decimals: 6, max: 1_000_000n },
} as const;
const RPC_TIMEOUT_MS = 10_000;
const RECEIPT_TIMEOUT_MS = 30_000;
const TEST_USDC_MINT = parseAbi(['function mint(address to, uint256 value)']);

/** The configured node, else `npm start`'s development chain of the network when this data folder has one. */
interface CliEvmNode {
  network: EvmNetworkName;
  rpcUrl: string;
  chainId: number;
  hotWalletAddress: Address;
  origin: 'configured' | 'development chain';
}

function evmNodeOf(settings: Settings, network: EvmNetworkName): CliEvmNode | undefined {
  const configured = settings.evmNetworks[network];
  if (configured)
    return {
      network,
      rpcUrl: configured.rpcUrl,
      chainId: configured.chainId,
      hotWalletAddress: privateKeyToAccount(configured.hotWalletPrivateKey as `0x${string}`).address,
      origin: 'configured',
    };
  if (settings.development.chain !== 'local-evm') return undefined;
  const development = readDevelopmentChain(settings.development.dataDir, network);
  if (!development) return undefined;
  return {
    network,
    rpcUrl: localUrl(settings.development.host, developmentNodePort(settings, network)),
    chainId: DEVELOPMENT_CHAIN_IDS[network],
    hotWalletAddress: development.marker.hotWalletAddress,
    origin: 'development chain',
  };
}

function chainOf(node: { network: string; rpcUrl: string; chainId: number }): Chain {
  return defineChain({
    id: node.chainId,
    name: node.network,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [node.rpcUrl] } },
  });
}

function clientOf(node: CliEvmNode): PublicClient {
  return createPublicClient({
    chain: chainOf(node),
    cacheTime: 0,
    transport: http(node.rpcUrl, { timeout: RPC_TIMEOUT_MS, retryCount: 1 }),
  });
}

/** viem's one-line summary: its full message carries the node's URL, which may carry an API key. */
function withoutUrl(error: unknown): string {
  if (error && typeof error === 'object' && 'shortMessage' in error && typeof error.shortMessage === 'string') return error.shortMessage;
  return error instanceof Error ? error.message.split('\n')[0]! : String(error);
}

async function identityOf(node: CliEvmNode): Promise<ChainIdentity> {
  const client = clientOf(node);
  try {
    const [chainId, genesis] = await Promise.all([client.getChainId(), client.getBlock({ blockNumber: 0n })]);
    return { chainId, genesisHash: genesis.hash.toLowerCase() };
  } catch (error) {
    throw new CliFailure({
      error: 'chain-unreachable',
      message: `the ${node.network} node (${node.origin}) did not answer: ${withoutUrl(error)}`,
    });
  }
}

function shownIdentity(identity: RecordedChainIdentity) {
  return {
    id: identity.id,
    chainId: identity.chainId,
    genesisHash: identity.genesisHash,
    recordedAt: identity.recordedAt.toISOString(),
    ...(identity.adoptedAt ? { adoptedAt: identity.adoptedAt.toISOString(), adoptedBy: identity.adoptedBy } : {}),
  };
}

/** A positive decimal of at most the currency's decimals, up to its limit: the base units it sends. */
function fundAmount(amount: string, currency: keyof typeof FUND_LIMITS): bigint {
  const limit = FUND_LIMITS[currency];
  const match = /^(\d{1,16})(?:\.(\d{1,18}))?$/.exec(amount);
  if (!match) throw new UsageMistake('--amount must be a plain decimal, e.g. 12.5');
  if ((match[2] ?? '').length > limit.decimals)
    throw new UsageMistake(`--amount has more than the ${limit.decimals} decimals ${currency} has`);
  const units = parseUnits(amount, limit.decimals);
  if (units <= 0n) throw new UsageMistake('--amount must be more than 0');
  if (units > limit.max * 10n ** BigInt(limit.decimals)) throw new UsageMistake(`--amount must be at most ${limit.max} ${currency}`);
  return units;
}

export const chainCommands: Record<string, Command> = {
  'chain info': command({
    changesState: false,
    async run({ settings }) {
      const networks = [];
      for (const network of NETWORKS) {
        const { family } = NETWORK_DECLARATIONS[network];
        if (!isEvmNetwork(network)) {
          networks.push(await utxoNetworkInfo(settings, network));
          continue;
        }
        const node = evmNodeOf(settings, network);
        if (!node) {
          // None is configured here: its withdrawals are simulated.
          networks.push({ network, family, real: false, node: null });
          continue;
        }
        let identity: ChainIdentity | { unreachable: string };
        try {
          identity = await identityOf(node);
        } catch (error) {
          identity = { unreachable: error instanceof Error ? error.message : String(error) };
        }
        const development = node.origin === 'development chain';
        networks.push({
          network,
          family,
          real: true,
          node: {
            kind: development ? `geth ${GETH_VERSION} (npm start's development chain)` : 'configured (EVM_RPC_URL)',
            // A configured URL may carry an API key: shown for the local development chain only.
            rpcUrl: development ? node.rpcUrl : null,
            configuredChainId: node.chainId,
            ...identity,
          },
          hotWalletAddress: node.hotWalletAddress,
        });
      }
      return { networks };
    },
  }),

  'chain identity': command({
    changesState: false,
    async run({ em, settings }) {
      const recorded = new Map((await findChainIdentities(em)).map((identity) => [identity.network, identity]));
      const networks = [];
      for (const network of EVM_NETWORK_NAMES) {
        const node = evmNodeOf(settings, network);
        const identity = recorded.get(network);
        if (!node && !identity) continue;
        let onNode: object | null = null;
        let matches: boolean | null = null;
        if (node) {
          try {
            const seen = await identityOf(node);
            onNode = { origin: node.origin, ...seen };
            matches = identity ? identity.chainId === seen.chainId && identity.genesisHash === seen.genesisHash : null;
          } catch (error) {
            onNode = { origin: node.origin, unreachable: error instanceof Error ? error.message : String(error) };
          }
        }
        networks.push({ network, recorded: identity ? shownIdentity(identity) : null, node: onNode, matches });
      }
      return { networks };
    },
  }),

  'chain adopt': command({
    changesState: true,
    flags: { network: z.enum(EVM_NETWORK_NAMES) },
    async run({ em, flags, now, settings, operator, reason }) {
      if (reason === null) throw new UsageMistake('chain adopt needs --reason: why, for the audit trail');
      const node = evmNodeOf(settings, flags.network);
      if (!node)
        throw new OperatorActionRefused(
          'no-evm-node',
          `${flags.network} has no node here (no EVM_RPC_URL_${flags.network.toUpperCase()}, and no development chain in DATA_DIR): nothing to adopt`,
        );
      const identity = await identityOf(node);
      const client = clientOf(node);
      const adoption = await adoptChain(
        em,
        flags.network,
        {
          identity,
          hotWalletAddress: node.hotWalletAddress.toLowerCase(),
          transactionCount: async (address) =>
            BigInt(await client.getTransactionCount({ address: getAddress(address), blockTag: 'pending' })),
        },
        operator.actor,
        now,
      );
      const previous = adoption.previous ? shownIdentity(adoption.previous) : null;
      const adopted = shownIdentity(adoption.adopted);
      return {
        output: { network: flags.network, previous, adopted, ...(adoption.walletNonce ? { walletNonce: adoption.walletNonce } : {}) },
        audit: {
          action: 'chain-adopt',
          subject: { type: 'evm-chain-identity', id: adoption.adopted.id, partnerId: null },
          details: { network: flags.network, previous, adopted, walletNonce: adoption.walletNonce ?? null },
        },
      };
    },
  }),

  'chain fund': command({
    changesState: true,
    flags: {
      address: z.string().min(1).max(100),
      currency: z.enum(['btc', 'ltc', 'eth', 'pol', 'usdc']),
      network: z.enum(NETWORKS).optional(),
      amount: z.string(),
    },
    async run({ flags, settings }) {
      const network = flags.network ?? defaultNetwork(flags.currency);
      if (!CURRENCY_NETWORKS[flags.currency].includes(network)) throw new UsageMistake(`${flags.currency} does not move on ${network}`);
      const units = fundAmount(flags.amount, flags.currency);
      if (!isEvmNetwork(network)) return fundOnRegtest(settings, network, flags.address, units, flags.amount);
      if (!isAddress(flags.address))
        throw new UsageMistake('--address must be an EVM address (0x and 40 hex digits; mixed case must be its checksum)');
      const to = getAddress(flags.address);
      // Only `npm start`'s own chain: the network's development chain id and the genesis its marker in DATA_DIR recorded.
      const development = readDevelopmentChain(settings.development.dataDir, network);
      const node = evmNodeOf(settings, network);
      if (!development || !node)
        throw new OperatorActionRefused(
          'not-development-chain',
          `chain fund sends test funds on npm start's local development chain only, and ${
            development
              ? `${network} has no node here (CHAIN=simulated)`
              : `DATA_DIR (${settings.development.dataDir}) holds none for ${network}`
          }`,
        );
      const chainId = DEVELOPMENT_CHAIN_IDS[network];
      const identity = await identityOf(node);
      if (identity.chainId !== chainId || identity.genesisHash !== development.marker.genesisHash)
        throw new OperatorActionRefused(
          'not-development-chain',
          `the ${network} node (${node.origin}) is on chain id ${identity.chainId}, genesis ${identity.genesisHash}; ` +
            `the ${network} development chain of DATA_DIR is chain id ${chainId}, genesis ${development.marker.genesisHash}: chain fund sends test funds there only`,
        );
      // Inside the command's transaction: a failed send leaves no audit row (a failed commit after one: test funds only).
      const chain = chainOf(node);
      const transport = http(node.rpcUrl, { timeout: RPC_TIMEOUT_MS, retryCount: 0 });
      const faucet = createWalletClient({ chain, transport, account: privateKeyToAccount(development.keys.faucetPrivateKey) });
      const hash =
        flags.currency !== 'usdc'
          ? await faucet.sendTransaction({ to, value: units })
          : await faucet.writeContract({
              address: development.marker.usdcAddress,
              abi: TEST_USDC_MINT,
              functionName: 'mint',
              args: [to, units],
            });
      const receipt = await createPublicClient({ chain, transport }).waitForTransactionReceipt({
        hash,
        pollingInterval: 200,
        timeout: RECEIPT_TIMEOUT_MS,
      });
      if (receipt.status !== 'success')
        throw new CliFailure({ error: 'chain-transfer-failed', message: `transaction ${hash} reverted`, transactionHash: hash });
      const amount = flags.amount.includes('.') ? flags.amount.replace(/\.?0+$/, '') : flags.amount;
      const output = {
        network,
        currency: flags.currency,
        amount,
        address: to,
        transactionHash: hash,
        blockNumber: receipt.blockNumber.toString(),
      };
      return {
        output,
        audit: {
          action: 'chain-fund',
          subject: { type: 'chain-transfer', id: randomUUID(), partnerId: null },
          details: { ...output },
        },
      };
    },
  }),
};
