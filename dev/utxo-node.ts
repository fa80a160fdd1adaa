import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { localUrl } from '../core/listen-address';
import type { Logger } from '../core/logger';
import { UtxoRpc } from '../activities/adapters/chain/utxo/utxo-rpc';
import { btcdBuildProblem, ensureBtcdBuild } from './btcd-build';
import { isExecutable } from './go-build-cache';
import { stopChild } from './geth-process';

/**
 * The regtest nodes of the UTXO networks, for `npm start` and the tests: Bitcoin on btcd (built from Go modules), Litecoin on
 * Litecoin Core (`litecoind`, Debian's package). Each runs under a small Node parent that stops it when its stdin ends (the
 * starting process holds the other end, so the node stops with it however it ends) and, when asked, mines a block every
 * interval. Dogecoin has no node to be had here (no Go module, no Debian package): it stays simulated.
 */
export type UtxoNodeNetwork = 'bitcoin' | 'litecoin';
export type UtxoNodeKind = 'btcd' | 'litecoind';

export const UTXO_NODE_KIND: Readonly<Record<UtxoNodeNetwork, UtxoNodeKind>> = { bitcoin: 'btcd', litecoin: 'litecoind' };

/** Regtest coinbases spend after 100 blocks. */
export const COINBASE_MATURITY = 100;
/** A new chain is mined this high: a hundred mature coinbases of 50 coins each for the faucet. */
export const INITIAL_HEIGHT = 2 * COINBASE_MATURITY;
const STOP_TIMEOUT_MS = 30_000;
const READY_TIMEOUT_MS = 60_000;

export interface UtxoNodeOptions {
  network: UtxoNodeNetwork;
  /** The node's folder (kept across starts). */
  dir: string;
  host: string;
  rpcPort: number;
  /** Every block mined pays this address (btcd's --miningaddr; generatetoaddress for litecoind). */
  miningAddress: string;
  /** A block every this many ms; 0: only when asked (tests). */
  blockIntervalMs: number;
  log: Logger;
  /** An explicit binary (BTCD_PATH, LITECOIND_PATH). */
  binary?: string | undefined;
}

export interface RunningUtxoNode {
  network: UtxoNodeNetwork;
  kind: UtxoNodeKind;
  /** With the development credentials. */
  rpcUrl: string;
  rpc: UtxoRpc;
  stop(): Promise<void>;
}

/** Development credentials: the node listens on loopback only, like the other development chains. */
export const DEVELOPMENT_RPC_USER = 'dev';
export const DEVELOPMENT_RPC_PASSWORD = 'dev';

/** The node's URL with the development credentials, as a client on this machine reaches it. */
export function developmentUtxoNodeUrl(host: string, port: number): string {
  const url = new URL(localUrl(host, port));
  url.username = DEVELOPMENT_RPC_USER;
  url.password = DEVELOPMENT_RPC_PASSWORD;
  return url.toString().replace(/\/$/, '');
}

/** Why the network's node cannot be had on this machine, with how to get it; undefined when it can. */
export function utxoNodeProblem(network: UtxoNodeNetwork, binary?: string): string | undefined {
  if (network === 'bitcoin') return btcdBuildProblem(binary);
  if (litecoindPath(binary)) return undefined;
  return "litecoin's local chain is Litecoin Core: install it (Debian: apt-get install litecoind) or set LITECOIND_PATH";
}

function litecoindPath(binary: string | undefined): string | undefined {
  if (binary) return isExecutable(binary) ? binary : undefined;
  const found = spawnSync('sh', ['-c', 'command -v litecoind'], { encoding: 'utf8' });
  const file = found.stdout.trim();
  return found.status === 0 && file && isExecutable(file) ? file : undefined;
}

/** Starts the node on its folder, waits for its RPC, and mines a new chain to INITIAL_HEIGHT. */
export async function startUtxoNode(options: UtxoNodeOptions): Promise<RunningUtxoNode> {
  const kind = UTXO_NODE_KIND[options.network];
  fs.mkdirSync(options.dir, { recursive: true });
  const binary = kind === 'btcd' ? await ensureBtcdBuild(options.binary, options.log) : litecoindPath(options.binary);
  if (!binary) throw new Error(utxoNodeProblem(options.network, options.binary));
  const rpcUrl = developmentUtxoNodeUrl(options.host, options.rpcPort);
  const child = spawnNode(kind, binary, options, rpcUrl);
  const rpc = new UtxoRpc(rpcUrl);
  const stop = () => stopChild(child);
  try {
    await waitForRpc(rpc, child, options);
    const height = await rpc.blockCount();
    if (height < INITIAL_HEIGHT) await rpc.mine(INITIAL_HEIGHT - height, options.miningAddress);
  } catch (error) {
    await stop();
    throw error;
  }
  return { network: options.network, kind, rpcUrl, rpc, stop };
}

function nodeArguments(kind: UtxoNodeKind, options: UtxoNodeOptions): string[] {
  if (kind === 'btcd') {
    const config = path.join(options.dir, 'btcd.conf');
    // Without a config file of its own, btcd writes one into ~/.btcd.
    if (!fs.existsSync(config)) fs.writeFileSync(config, '');
    return [
      `--configfile=${config}`,
      `--datadir=${path.join(options.dir, 'data')}`,
      `--logdir=${path.join(options.dir, 'logs')}`,
      '--regtest',
      '--txindex',
      '--notls',
      '--nolisten',
      `--rpcuser=${DEVELOPMENT_RPC_USER}`,
      `--rpcpass=${DEVELOPMENT_RPC_PASSWORD}`,
      `--rpclisten=${options.host}:${options.rpcPort}`,
      `--miningaddr=${options.miningAddress}`,
      '--debuglevel=warn',
    ];
  }
  return [
    '-regtest',
    `-datadir=${options.dir}`,
    '-txindex',
    '-server',
    '-listen=0',
    `-rpcuser=${DEVELOPMENT_RPC_USER}`,
    `-rpcpassword=${DEVELOPMENT_RPC_PASSWORD}`,
    `-rpcbind=${options.host}`,
    `-rpcallowip=${options.host}`,
    `-rpcport=${options.rpcPort}`,
    // Its own wallet (litecoin-cli, for whoever tries the chain by hand) needs a fee rate where regtest has no estimate.
    '-fallbackfee=0.0001',
    // MWEB never activates: on regtest it would at height 432, where the first extension block needs a peg-in this chain
    // never makes, and every block after would be refused (bad-txns-vin-empty): the chain would stop. Nothing here pays
    // or reads MWEB outputs (an MWEB address is no address of ours: docs/architecture.md, "A real UTXO chain").
    '-vbparams=mweb:0:0',
    '-printtoconsole=0',
  ];
}

/** The parent: stops the node (SIGTERM, then SIGKILL) when its stdin ends; mines a block every interval when asked. */
const PARENT_SCRIPT = `
const { spawn } = require('node:child_process');
const node = spawn(process.env.UTXO_NODE_BINARY, JSON.parse(process.env.UTXO_NODE_ARGS), { stdio: ['ignore', 'inherit', 'inherit'] });
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  if (ticker) clearInterval(ticker);
  node.kill('SIGTERM');
  setTimeout(() => node.kill('SIGKILL'), ${STOP_TIMEOUT_MS}).unref();
};
process.stdin.on('end', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
node.on('exit', (code) => process.exit(code ?? 1));
const interval = Number(process.env.UTXO_NODE_BLOCK_INTERVAL_MS);
const url = new URL(process.env.UTXO_NODE_RPC_URL);
const authorization = 'Basic ' + Buffer.from(decodeURIComponent(url.username) + ':' + decodeURIComponent(url.password)).toString('base64');
url.username = '';
url.password = '';
const call = (method, params) => fetch(url, {
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization },
  body: JSON.stringify({ jsonrpc: '1.0', id: 1, method, params }),
  signal: AbortSignal.timeout(interval * 5),
});
const mine = process.env.UTXO_NODE_KIND === 'btcd'
  ? () => call('generate', [1])
  : () => call('generatetoaddress', [1, process.env.UTXO_NODE_MINING_ADDRESS]);
const ticker = interval > 0 ? setInterval(() => mine().catch(() => undefined), interval) : undefined;
`;

function spawnNode(kind: UtxoNodeKind, binary: string, options: UtxoNodeOptions, rpcUrl: string): ChildProcess {
  const logFd = fs.openSync(path.join(options.dir, 'node.log'), 'a');
  try {
    return spawn(process.execPath, ['-e', PARENT_SCRIPT], {
      stdio: ['pipe', logFd, logFd],
      env: {
        ...process.env,
        UTXO_NODE_BINARY: binary,
        UTXO_NODE_ARGS: JSON.stringify(nodeArguments(kind, options)),
        UTXO_NODE_KIND: kind,
        UTXO_NODE_RPC_URL: rpcUrl,
        UTXO_NODE_MINING_ADDRESS: options.miningAddress,
        UTXO_NODE_BLOCK_INTERVAL_MS: String(options.blockIntervalMs),
      },
    });
  } finally {
    fs.closeSync(logFd);
  }
}

async function waitForRpc(rpc: UtxoRpc, child: ChildProcess, options: UtxoNodeOptions): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`the ${options.network} node exited with ${child.exitCode}: see ${path.join(options.dir, 'node.log')}`);
    }
    try {
      await rpc.blockCount();
      return;
    } catch (error) {
      // Litecoin Core answers -28 ("Loading block index…") while it starts.
      if (Date.now() > deadline)
        throw new Error(`the ${options.network} node did not answer within ${READY_TIMEOUT_MS} ms: ${String(error)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
