import { spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createPublicClient, createWalletClient, getAddress, http, isAddress, isHex, parseEther, parseUnits } from 'viem';
import type { Address, Chain, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { LOOPBACK, localUrl } from '../core/listen-address';
import type { Logger } from '../core/logger';
import type { EvmNetwork } from '../core/networks';
import { testUsdcContract } from './evm/test-usdc.contract';
import { localChain } from './evm-node';
import type { RunningEvmNode } from './evm-node';
import { ensureGethBuild, GETH_VERSION } from './geth-build';
import { DATABASE_FLAGS, spawnGeth, stopChild, waitForEarlierGeth } from './geth-process';

export { GETH_PID_FILE } from './geth-process';

/**
 * `npm start`'s local chain: a real Ethereum client (geth in developer mode) whose chain lives in
 * the data folder and survives restarts, so the ledger in Postgres and the chain keep agreeing.
 * Chosen over ganache 7.9 (npm, archived upstream, a JavaScript emulator like Hardhat's) because
 * it is the client mainnet runs, is maintained, and needs no npm package: it is built with Go into
 * ~/.cache like the Temporal CLI. Tests keep Hardhat's in-memory node (dev/evm-node.ts): they mine
 * themselves and reorganise with evm_snapshot/evm_revert, which geth does not have.
 *
 * The folder `DATA_DIR/dev-chain-<chain id>/` holds geth's database, the chain's keys (`keys.json`,
 * owner-only: the hot wallet and the faucet, which also owns the test USDC) and `chain.json`, the
 * marker written once the chain is complete: its genesis hash, hot wallet and USDC addresses. The
 * marker also tells `npm run ops -- chain fund` that the node it talks to is this chain.
 */

/**
 * One local chain per EVM network, each a geth of its own: ethereum on Hardhat's chain id (wallets and tools already know it
 * as a local development chain), polygon on the next. A second geth rather than another node: geth is built for ethereum
 * already, starts in about a second and keeps its chain through a SIGKILL (docs/architecture.md, "A real EVM chain").
 */
export const DEVELOPMENT_CHAIN_IDS: Readonly<Record<EvmNetwork, number>> = { ethereum: 31337, polygon: 31338 };
/**
 * The token transfer's gas limit on these chains: geth's developer mode runs forks ahead of mainnet, where creating storage
 * costs more (a test USDC transfer to a new holder took 152 250 gas, beyond the mainnet default of 100 000).
 */
export const DEVELOPMENT_TOKEN_TRANSFER_GAS_LIMIT = 300_000;
/** A block this often when nothing else happens, besides one per transaction: deposits gain confirmations on a quiet chain. */
export const DEVELOPMENT_BLOCK_INTERVAL_MS = 1_000;
/** More than the demo partner holds (40 eth, 100 000 pol): custody reconciliation finds no shortfall on a new chain. */
export const HOT_WALLET_NATIVE = '1000000';
const HOT_WALLET_USDC = '1000000';
/** The faucet `chain fund` sends from; it also deploys and mints the test USDC. */
const FAUCET_NATIVE = '1000000000';
const READY_TIMEOUT_MS = 60_000;
/** The chain's marker and its keys in its folder (tests that stand a Hardhat node in for this chain write them too). */
export const DEVELOPMENT_CHAIN_FILES = { marker: 'chain.json', keys: 'keys.json' } as const;
const MARKER_FILE = DEVELOPMENT_CHAIN_FILES.marker;
const KEYS_FILE = DEVELOPMENT_CHAIN_FILES.keys;

/** What `chain.json` records of the chain, written once when the chain is complete. */
export interface DevelopmentChainMarker {
  chainId: number;
  genesisHash: string;
  hotWalletAddress: Address;
  usdcAddress: Address;
  faucetAddress: Address;
  createdAt: string;
  geth: string;
}

export interface DevelopmentChainKeys {
  hotWalletPrivateKey: Hex;
  faucetPrivateKey: Hex;
}

export interface RunningDevelopmentChain extends RunningEvmNode {
  network: EvmNetwork;
  genesisHash: string;
  /** True when this start made a new chain (none was in the data folder). */
  created: boolean;
  dir: string;
}

export interface DevelopmentChainOptions {
  network: EvmNetwork;
  dataDir: string;
  port: number;
  /** The interface its JSON-RPC listens on: loopback when not given (`npm start` passes HOST). */
  host?: string;
  /** GETH_PATH; else the cached build, built with Go when missing. */
  gethPath?: string;
  /** Default DEVELOPMENT_BLOCK_INTERVAL_MS. */
  blockIntervalMs?: number;
  log: Logger;
}

/** The JSON-RPC port of the network's local chain (EVM_NODE_PORT, EVM_NODE_PORT_POLYGON). */
export function developmentNodePort(
  settings: { development: { evmNodePort: number; evmNodePolygonPort: number } },
  network: EvmNetwork,
): number {
  const ports: Record<EvmNetwork, number> = {
    ethereum: settings.development.evmNodePort,
    polygon: settings.development.evmNodePolygonPort,
  };
  return ports[network];
}

export function developmentChainDir(dataDir: string, network: EvmNetwork): string {
  return path.join(dataDir, `dev-chain-${DEVELOPMENT_CHAIN_IDS[network]}`);
}

/** The chain `npm start` made in this data folder, with its keys; undefined when there is none (or it was never completed). */
export function readDevelopmentChain(
  dataDir: string,
  network: EvmNetwork,
): { marker: DevelopmentChainMarker; keys: DevelopmentChainKeys } | undefined {
  const dir = developmentChainDir(dataDir, network);
  const marker = readJson(path.join(dir, MARKER_FILE));
  const keys = readJson(path.join(dir, KEYS_FILE));
  if (marker === undefined || keys === undefined) return undefined;
  if (!isMarker(marker, DEVELOPMENT_CHAIN_IDS[network]))
    throw new Error(`${path.join(dir, MARKER_FILE)} is not a development chain's marker`);
  if (!isKeys(keys)) throw new Error(`${path.join(dir, KEYS_FILE)} does not hold the development chain's keys`);
  return { marker, keys };
}

/**
 * Starts the development chain of this data folder, making it on the first start: geth in
 * developer mode on the network's chain id, a genesis that funds the hot wallet and the faucet (and a
 * random extra-data, so every new chain has a genesis hash of its own), then the test USDC
 * deployed and minted to the hot wallet. Later starts run the same chain: same genesis hash, same
 * hot wallet, same USDC address, every block and balance kept. It mines a block per transaction
 * and one every second.
 */
export async function startDevelopmentChain(options: DevelopmentChainOptions): Promise<RunningDevelopmentChain> {
  const geth = await ensureGethBuild(options.gethPath, options.log);
  const chainId = DEVELOPMENT_CHAIN_IDS[options.network];
  const dir = developmentChainDir(options.dataDir, options.network);
  await waitForEarlierGeth(dir, geth, options.log);
  const existing = readDevelopmentChain(options.dataDir, options.network);
  const keys = existing?.keys ?? createChain(geth, dir, chainId, options.log);
  const host = options.host ?? LOOPBACK;
  const rpcUrl = localUrl(host, options.port);
  const logFile = path.join(dir, 'geth.log');
  const child = spawnGeth(geth, dir, host, options.port, rpcUrl, options.blockIntervalMs ?? DEVELOPMENT_BLOCK_INTERVAL_MS, logFile);
  options.log.info(
    `starting geth ${GETH_VERSION} (${options.network} development chain ${chainId}) on ${rpcUrl}, data ${dir}, log ${logFile}`,
  );
  try {
    const chain = localChain(chainId, rpcUrl);
    const client = createPublicClient({ chain, cacheTime: 0, transport: http(undefined, { retryCount: 0 }) });
    await waitUntilServing(chain, child, logFile);
    const genesis = await client.getBlock({ blockNumber: 0n });
    const hotWalletAddress = privateKeyToAccount(keys.hotWalletPrivateKey).address;
    let marker: DevelopmentChainMarker;
    if (existing) {
      marker = existing.marker;
      if (genesis.hash !== marker.genesisHash)
        throw new Error(
          `the chain in ${dir} has genesis ${genesis.hash}, its marker says ${marker.genesisHash}: its database is not the one the marker was written for. ` +
            `Restore it, or delete ${dir} to start a new chain (the service then refuses it until an operator adopts it: docs/operators.md, "The chain's identity")`,
        );
      if ((await client.getCode({ address: marker.usdcAddress })) === undefined)
        throw new Error(`the development chain in ${dir} has no test USDC at ${marker.usdcAddress}; delete ${dir} to start a new chain`);
    } else {
      const usdcAddress = getAddress(await deployTestUsdc(chain, keys, hotWalletAddress));
      marker = {
        chainId,
        genesisHash: genesis.hash,
        hotWalletAddress,
        usdcAddress,
        faucetAddress: privateKeyToAccount(keys.faucetPrivateKey).address,
        createdAt: new Date().toISOString(),
        geth: GETH_VERSION,
      };
      // Last: a chain whose creation was cut short has no marker and is made again from nothing.
      writeFileAtomically(path.join(dir, MARKER_FILE), `${JSON.stringify(marker, null, 2)}\n`, 0o644);
    }
    options.log.info(
      `${options.network} development chain ${existing ? 'resumed' : 'created'} at block ${await client.getBlockNumber()}: genesis ${marker.genesisHash}, hot wallet ${hotWalletAddress}, test USDC ${marker.usdcAddress}`,
    );
    return {
      network: options.network,
      rpcUrl,
      chainId,
      genesisHash: marker.genesisHash,
      hotWalletPrivateKey: keys.hotWalletPrivateKey,
      hotWalletAddress,
      usdcAddress: marker.usdcAddress,
      usdcOwnerPrivateKey: keys.faucetPrivateKey,
      logFile,
      created: !existing,
      dir,
      stop: () => stopChild(child),
    };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

/**
 * A new chain from nothing: whatever an earlier, unfinished creation left is removed, new keys are
 * written (owner-only), and geth initialises its database from a genesis of its own developer
 * mode's (`geth --dev dumpgenesis`: the forks and system contracts of this version) with our
 * chain id, our funded accounts and a random extra-data.
 */
function createChain(geth: string, dir: string, chainId: number, log: Logger): DevelopmentChainKeys {
  log.info(`no development chain in ${dir}: making a new one`);
  for (const leftover of ['geth-data', 'genesis.json', KEYS_FILE, MARKER_FILE])
    fs.rmSync(path.join(dir, leftover), { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const keys: DevelopmentChainKeys = { hotWalletPrivateKey: generatePrivateKey(), faucetPrivateKey: generatePrivateKey() };
  writeFileAtomically(path.join(dir, KEYS_FILE), `${JSON.stringify(keys, null, 2)}\n`, 0o600);

  const dumped = run(geth, ['--dev', 'dumpgenesis']);
  const genesis = JSON.parse(dumped) as { config: { chainId: number }; alloc: Record<string, { balance: string }>; extraData: string };
  genesis.config.chainId = chainId;
  genesis.extraData = `0x${randomBytes(32).toString('hex')}`;
  const fund = (key: Hex, ether: string) => {
    genesis.alloc[privateKeyToAccount(key).address.slice(2).toLowerCase()] = { balance: `0x${parseEther(ether).toString(16)}` };
  };
  // Funded in the genesis, not by a transfer: the hot wallet's nonce starts at 0, its transactions are ours alone.
  fund(keys.hotWalletPrivateKey, HOT_WALLET_NATIVE);
  fund(keys.faucetPrivateKey, FAUCET_NATIVE);
  const genesisFile = path.join(dir, 'genesis.json');
  fs.writeFileSync(genesisFile, `${JSON.stringify(genesis, null, 2)}\n`);
  run(geth, ['init', ...DATABASE_FLAGS, '--datadir', path.join(dir, 'geth-data'), genesisFile]);
  return keys;
}

async function waitUntilServing(chain: Chain, child: ChildProcess, logFile: string): Promise<void> {
  const client = createPublicClient({ chain, transport: http(undefined, { retryCount: 0, timeout: 1000 }) });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`geth exited (${child.exitCode ?? child.signalCode}); see ${logFile}`);
    let chainId: number | undefined;
    try {
      chainId = await client.getChainId();
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
      continue;
    }
    if (chainId !== chain.id) throw new Error(`the node on ${chain.rpcUrls.default.http[0]} has chain id ${chainId}, not ${chain.id}`);
    return;
  }
  throw new Error(`geth was not ready after ${READY_TIMEOUT_MS} ms; see ${logFile}`);
}

async function deployTestUsdc(chain: Chain, keys: DevelopmentChainKeys, hotWalletAddress: Address): Promise<Address> {
  const contract = await testUsdcContract();
  const transport = http(undefined, { retryCount: 0 });
  const client = createPublicClient({ chain, transport, cacheTime: 0 });
  const owner = createWalletClient({ chain, transport, account: privateKeyToAccount(keys.faucetPrivateKey) });
  const deployed = await client.waitForTransactionReceipt({
    hash: await owner.deployContract({ abi: contract.abi, bytecode: contract.bytecode }),
    pollingInterval: 100,
  });
  if (deployed.status !== 'success' || !deployed.contractAddress) throw new Error('deploying the test USDC failed');
  const minted = await client.waitForTransactionReceipt({
    hash: await owner.writeContract({
      address: deployed.contractAddress,
      abi: contract.abi,
      functionName: 'mint',
      args: [hotWalletAddress, parseUnits(HOT_WALLET_USDC, 6)],
    }),
    pollingInterval: 100,
  });
  if (minted.status !== 'success') throw new Error('minting the test USDC failed');
  return deployed.contractAddress;
}

function run(command: string, args: string[]): string {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(
      `${path.basename(command)} ${args.join(' ')} failed (${result.error?.message ?? `exit code ${result.status}`}): ${result.stderr.slice(-2000)}`,
    );
  return result.stdout;
}

function writeFileAtomically(file: string, content: string, mode: number): void {
  const partial = `${file}.partial-${process.pid}`;
  fs.writeFileSync(partial, content, { mode });
  fs.renameSync(partial, file);
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`${file} is not JSON`);
  }
}

function isMarker(value: unknown, chainId: number): value is DevelopmentChainMarker {
  if (typeof value !== 'object' || value === null) return false;
  const marker = value as Record<string, unknown>;
  return (
    marker.chainId === chainId &&
    typeof marker.genesisHash === 'string' &&
    /^0x[0-9a-f]{64}$/.test(marker.genesisHash) &&
    typeof marker.hotWalletAddress === 'string' &&
    isAddress(marker.hotWalletAddress) &&
    typeof marker.usdcAddress === 'string' &&
    isAddress(marker.usdcAddress) &&
    typeof marker.faucetAddress === 'string' &&
    isAddress(marker.faucetAddress)
  );
}

function isKeys(value: unknown): value is DevelopmentChainKeys {
  if (typeof value !== 'object' || value === null) return false;
  const keys = value as Record<string, unknown>;
  const isKey = (key: unknown) => typeof key === 'string' && isHex(key, { strict: true }) && key.length === 66;
  return isKey(keys.hotWalletPrivateKey) && isKey(keys.faucetPrivateKey);
}
