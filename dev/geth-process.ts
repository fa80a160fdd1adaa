import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../core/logger';

/**
 * The geth process of `npm start`'s local chain (dev/development-chain.ts): its flags, the small
 * parent it runs under, how it is stopped, and how a start waits for an earlier one still stopping.
 */

/** geth flushes its database on SIGTERM; a large one may take a while. */
const STOP_TIMEOUT_MS = 30_000;
/** geth's pid, written by its parent process when it spawns it (and left behind: a start checks that pid is still geth). */
export const GETH_PID_FILE = 'geth.pid';

/**
 * LevelDB, the hash state scheme and archive mode: every block's state is written when the block
 * is, so even a killed geth (not only a stopped one) comes back at its last block (test/devchain
 * kills it with SIGKILL). With Pebble (the default) it lost its last blocks; with the path scheme
 * and no archive mode it went back to the genesis.
 */
export const DATABASE_FLAGS = ['--db.engine', 'leveldb', '--state.scheme', 'hash'];

/**
 * geth under a small Node parent that exits, stopping geth cleanly (SIGTERM: it flushes its
 * database), when its stdin ends: the start process holds the other end, so the chain stops with
 * it however it ends (even SIGKILL). The parent also asks for a block every interval: in
 * developer mode with period 0 geth mines one per transaction and otherwise none, and a zero-gwei
 * withdrawal (`dev_addWithdrawal`) is a block that changes no balance.
 */
const CHILD_SCRIPT = `
const { spawn } = require('node:child_process');
const geth = spawn(process.env.DEV_CHAIN_GETH, JSON.parse(process.env.DEV_CHAIN_ARGS), { stdio: ['ignore', 'inherit', 'inherit'] });
require('node:fs').writeFileSync(process.env.DEV_CHAIN_PID_FILE, String(geth.pid));
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  clearInterval(ticker);
  geth.kill('SIGTERM');
  setTimeout(() => geth.kill('SIGKILL'), ${STOP_TIMEOUT_MS}).unref();
};
process.stdin.on('end', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
geth.on('exit', (code) => process.exit(code ?? 1));
let index = Date.now();
const interval = Number(process.env.DEV_CHAIN_BLOCK_INTERVAL_MS);
const ticker = setInterval(() => {
  const withdrawal = { index: '0x' + (index++).toString(16), validatorIndex: '0x0', address: '0x0000000000000000000000000000000000000000', amount: '0x0' };
  fetch(process.env.DEV_CHAIN_RPC_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'dev_addWithdrawal', params: [withdrawal] }),
    signal: AbortSignal.timeout(interval * 5),
  }).catch(() => undefined);
}, interval);
`;

export function spawnGeth(
  geth: string,
  dir: string,
  host: string,
  port: number,
  rpcUrl: string,
  blockIntervalMs: number,
  logFile: string,
): ChildProcess {
  const args = [
    '--dev',
    '--dev.period',
    '0',
    '--datadir',
    path.join(dir, 'geth-data'),
    ...DATABASE_FLAGS,
    '--gcmode',
    'archive',
    '--cache',
    '64',
    '--http',
    '--http.addr',
    host,
    '--http.port',
    String(port),
    // `dev` for the block ticker; like Hardhat's own methods, whoever reaches the node may shape its chain.
    '--http.api',
    'eth,net,web3,dev',
    '--ipcdisable',
    '--verbosity',
    '2',
  ];
  const logFd = fs.openSync(logFile, 'a');
  try {
    return spawn(process.execPath, ['-e', CHILD_SCRIPT], {
      stdio: ['pipe', logFd, logFd],
      env: {
        ...process.env,
        DEV_CHAIN_GETH: geth,
        DEV_CHAIN_ARGS: JSON.stringify(args),
        DEV_CHAIN_RPC_URL: rpcUrl,
        DEV_CHAIN_BLOCK_INTERVAL_MS: String(blockIntervalMs),
        // geth's own pid, for whoever must find it (the tests kill it with SIGKILL).
        DEV_CHAIN_PID_FILE: path.join(dir, GETH_PID_FILE),
      },
    });
  } finally {
    fs.closeSync(logFd);
  }
}

/** An earlier geth gets its own stop's time to flush and release the folder, and a little more. */
const EARLIER_GETH_TIMEOUT_MS = STOP_TIMEOUT_MS + 5_000;

/**
 * A geth of an earlier start may still be stopping on this folder: after `npm start` was killed and
 * started again at once, its geth flushes its database for a while after its JSON-RPC port is free,
 * and holds the folder's lock until it exits; a second geth on the folder would exit at once
 * ("datadir already used by another process"). Waits for it to exit, up to its stop's timeout.
 */
export async function waitForEarlierGeth(dir: string, geth: string, log: Logger): Promise<void> {
  const pid = Number.parseInt(pidFileText(path.join(dir, GETH_PID_FILE)), 10);
  if (!Number.isSafeInteger(pid) || pid <= 0 || !isGethRunning(pid, geth)) return;
  log.info(`geth ${pid} of an earlier start is still stopping on ${dir}: waiting for it to exit`);
  const deadline = Date.now() + EARLIER_GETH_TIMEOUT_MS;
  while (isGethRunning(pid, geth)) {
    if (Date.now() > deadline)
      throw new Error(
        `geth ${pid} of an earlier start still runs on ${dir} after ${EARLIER_GETH_TIMEOUT_MS} ms: stop it (kill ${pid}), then start again`,
      );
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Whether `pid` is a live geth of `geth`'s binary. Where /proc shows a process's command line, a pid
 * the system has given to another program since (the pid file outlives a reboot), or geth exited
 * and not yet reaped by its parent (its folder lock is released then), is not one.
 */
function isGethRunning(pid: number, geth: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  let commandLine: string;
  try {
    commandLine = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return true;
  }
  return commandLine.split('\0')[0] === geth;
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Its stdin ending is what stops it (see CHILD_SCRIPT); SIGKILL only if geth outlives its own stop.
  child.stdin?.end();
  const timeout = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS + 5_000);
  await exited;
  clearTimeout(timeout);
}

function pidFileText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}
