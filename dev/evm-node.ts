import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createPublicClient, createTestClient, createWalletClient, defineChain, http, parseEther, parseUnits } from 'viem';
import type { Address, Chain, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { LOOPBACK, localUrl } from '../core/listen-address';
import type { Logger } from '../core/logger';
import { testUsdcContract } from './evm/test-usdc.contract';
import type { CompiledContract } from './evm/test-usdc.contract';
import { freePort } from './free-port';

/** Hardhat's own default; a second node (polygon next to ethereum) needs another id. */
export const HARDHAT_CHAIN_ID = 31337;
const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;
const ROOT = path.resolve(__dirname, '..');
const HARDHAT_CLI = path.join(ROOT, 'node_modules/hardhat/internal/cli/cli.js');

/**
 * Runs Hardhat's CLI in the child and exits when its stdin ends: the parent holds the other end
 * of that pipe, so the node dies with its parent however the parent ends (even SIGKILL), where a
 * signal would not reach it. `node -e` leaves no script path in argv, so one is put back for
 * Hardhat, which reads its arguments from argv[2] on.
 */
const CHILD_SCRIPT = [
  "process.stdin.on('end', () => process.exit(0));",
  'process.stdin.resume();',
  "process.argv.splice(1, 0, 'hardhat');",
  'require(process.env.EVM_NODE_HARDHAT_CLI);',
].join('\n');

export interface EvmNodeOptions {
  /** Where the node's config and log go (a folder of its own per chain id is made inside). */
  dataDir: string;
  /** A free port when not given. */
  port?: number;
  /** The interface it listens on: loopback when not given (`npm start` passes HOST). */
  host?: string;
  chainId?: number;
  /** The key of the wallet withdrawals are sent from; a fresh random key when not given. Never logged. */
  hotWalletPrivateKey?: Hex;
  /** What the hot wallet is funded with, exact decimals (default 1000 of the native coin, 1 000 000 USDC). */
  hotWalletNative?: string;
  hotWalletUsdc?: string;
  /**
   * Also mine a block this often (Hardhat's interval mining), not only one per transaction: a
   * deposit then gains confirmations on an otherwise quiet chain (`npm start`). Tests leave it
   * out and mine blocks themselves.
   */
  blockIntervalMs?: number;
  /**
   * The genesis block's time. Every node started with the same one (and chain id) has the same
   * genesis hash: the same chain by the identity the service records per network
   * (evm-chain-identity.ts), so the tests' many nodes standing for one network share a database.
   * Another date makes another chain (a reset chain, to be refused). Default TEST_GENESIS_DATE.
   */
  genesisDate?: Date;
  log: Logger;
}

/** The tests' nodes' genesis time, whatever the day: one genesis hash for all of them. */
export const TEST_GENESIS_DATE = new Date('2026-01-01T00:00:00Z');

export interface RunningEvmNode {
  rpcUrl: string;
  chainId: number;
  hotWalletPrivateKey: Hex;
  hotWalletAddress: Address;
  /** The test USDC (dev/evm/test-usdc.sol): 6 decimals, `setBlocked(address, bool)` by its owner. */
  usdcAddress: Address;
  /** The test USDC's owner (and deployer): mints and blocks. A throwaway key of this node only. */
  usdcOwnerPrivateKey: Hex;
  logFile: string;
  stop(): Promise<void>;
}

/**
 * Starts Hardhat's in-memory EVM node (`hardhat node`) on 127.0.0.1 (or HOST), mining a block per
 * transaction (tests switch that off with `evm_setAutomine`), funds the hot wallet and deploys
 * and mints the test USDC: the tests' node (they mine themselves and reorganise with
 * evm_snapshot/evm_revert); `npm start` runs geth instead (dev/development-chain.ts), whose chain
 * survives restarts. The chain lives in memory only: every start is a fresh chain, so a fresh hot
 * wallet key per start (the default) keeps the nonces stored in Postgres by earlier runs from
 * applying to it.
 */
export async function startEvmNode(options: EvmNodeOptions): Promise<RunningEvmNode> {
  const chainId = options.chainId ?? HARDHAT_CHAIN_ID;
  const port = options.port ?? (await freePort());
  const nodeDir = path.join(options.dataDir, `evm-node-${chainId}`);
  fs.mkdirSync(nodeDir, { recursive: true });
  const configFile = path.join(nodeDir, 'hardhat.config.js');
  fs.writeFileSync(configFile, hardhatConfig(chainId, nodeDir, options.blockIntervalMs ?? 0, options.genesisDate ?? TEST_GENESIS_DATE));
  const logFile = path.join(nodeDir, 'evm-node.log');
  const host = options.host ?? LOOPBACK;
  const rpcUrl = localUrl(host, port);

  const child = spawnHardhatNode(configFile, host, port, logFile);
  options.log.info(`starting a Hardhat EVM node (chain ${chainId}) on ${rpcUrl}, log ${logFile}`);
  try {
    const chain = localChain(chainId, rpcUrl);
    // Compiling (about two seconds) runs before the wait for the node, which starts meanwhile.
    const contract = await testUsdcContract();
    await waitUntilServing(chain, child);
    const hotWalletPrivateKey = options.hotWalletPrivateKey ?? generatePrivateKey();
    const hotWalletAddress = privateKeyToAccount(hotWalletPrivateKey).address;
    const usdcOwnerPrivateKey = generatePrivateKey();
    const usdcAddress = await fundAndDeploy(chain, {
      hotWalletAddress,
      usdcOwnerPrivateKey,
      hotWalletNativeWei: parseEther(options.hotWalletNative ?? '1000'),
      hotWalletUsdcUnits: parseUnits(options.hotWalletUsdc ?? '1000000', 6),
      contract,
    });
    options.log.info(`EVM node ready: hot wallet ${hotWalletAddress}, test USDC ${usdcAddress}`);
    return {
      rpcUrl,
      chainId,
      hotWalletPrivateKey,
      hotWalletAddress,
      usdcAddress,
      usdcOwnerPrivateKey,
      logFile,
      stop: () => stopChild(child),
    };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

/** A viem chain for the local node; the native coin is called ETH whatever network it stands for. */
export function localChain(chainId: number, rpcUrl: string): Chain {
  return defineChain({
    id: chainId,
    name: `local EVM ${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

function hardhatConfig(chainId: number, nodeDir: string, blockIntervalMs: number, genesisDate: Date): string {
  const config = {
    networks: { hardhat: { chainId, initialDate: genesisDate.toISOString(), mining: { auto: true, interval: blockIntervalMs } } },
    // Nothing is compiled by Hardhat; its folders stay inside the node's own.
    paths: { sources: path.join(nodeDir, 'contracts'), cache: path.join(nodeDir, 'cache'), artifacts: path.join(nodeDir, 'artifacts') },
  };
  return `module.exports = ${JSON.stringify(config, null, 2)};\n`;
}

function spawnHardhatNode(configFile: string, host: string, port: number, logFile: string): ChildProcess {
  const logFd = fs.openSync(logFile, 'a');
  try {
    const args = ['-e', CHILD_SCRIPT, '--', '--config', configFile, 'node', '--hostname', host, '--port', String(port)];
    // Hardhat refuses to run from a folder it is not installed in: the repository's root.
    return spawn(process.execPath, args, {
      cwd: ROOT,
      stdio: ['pipe', logFd, logFd],
      env: { ...process.env, EVM_NODE_HARDHAT_CLI: HARDHAT_CLI, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true' },
    });
  } finally {
    fs.closeSync(logFd);
  }
}

async function waitUntilServing(chain: Chain, child: ChildProcess): Promise<void> {
  const client = createPublicClient({ chain, transport: http(undefined, { retryCount: 0, timeout: 1000 }) });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the Hardhat node exited (${child.exitCode ?? child.signalCode}); see its log`);
    try {
      const chainId = await client.getChainId();
      if (chainId !== chain.id) throw new Error(`the node on ${chain.rpcUrls.default.http[0]} has chain id ${chainId}, not ${chain.id}`);
      return;
    } catch (error) {
      if (error instanceof Error && error.message.includes('chain id')) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error(`the Hardhat node was not ready after ${READY_TIMEOUT_MS} ms`);
}

async function fundAndDeploy(
  chain: Chain,
  input: {
    hotWalletAddress: Address;
    usdcOwnerPrivateKey: Hex;
    hotWalletNativeWei: bigint;
    hotWalletUsdcUnits: bigint;
    contract: CompiledContract;
  },
): Promise<Address> {
  const transport = http(undefined, { retryCount: 0 });
  const client = createPublicClient({ chain, transport });
  const owner = createWalletClient({ chain, transport, account: privateKeyToAccount(input.usdcOwnerPrivateKey) });
  // Funding by hardhat_setBalance leaves the hot wallet's nonce at 0: its transactions are ours alone.
  const testClient = createTestClient({ chain, transport, mode: 'hardhat' });
  await testClient.setBalance({ address: input.hotWalletAddress, value: input.hotWalletNativeWei });
  await testClient.setBalance({ address: owner.account.address, value: parseEther('10') });
  const deployHash = await owner.deployContract({ abi: input.contract.abi, bytecode: input.contract.bytecode });
  const deployed = await client.waitForTransactionReceipt({ hash: deployHash, pollingInterval: 50 });
  if (deployed.status !== 'success' || !deployed.contractAddress) throw new Error('deploying the test USDC failed');
  const mintHash = await owner.writeContract({
    address: deployed.contractAddress,
    abi: input.contract.abi,
    functionName: 'mint',
    args: [input.hotWalletAddress, input.hotWalletUsdcUnits],
  });
  const minted = await client.waitForTransactionReceipt({ hash: mintHash, pollingInterval: 50 });
  if (minted.status !== 'success') throw new Error('minting the test USDC failed');
  return deployed.contractAddress;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timeout = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timeout);
}
