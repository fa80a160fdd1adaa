import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_KEYS } from '../core/search-attributes';
import { LOOPBACK, isUnspecifiedAddress, joinHostPort, localUrl, reachableHost } from '../core/listen-address';
import type { Logger } from '../core/logger';
import { registerSearchAttributes } from '../worker/search-attributes.registration';
import { buildIntoCache, goAvailable, goInstall, isExecutable, toolCacheDir } from './go-build-cache';

export const TEMPORAL_CLI_VERSION = 'v1.5.1';
const TEMPORAL_CLI_MODULE = `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`;
const READY_TIMEOUT_MS = 90_000;

/**
 * The dev server's SQLite settings: the write-ahead log, synced at checkpoints only. A process
 * crash loses nothing; a power loss may lose Temporal's last transactions (never the ledger's, in
 * Postgres), acceptable for a development server (production runs a Temporal cluster). About 2.5
 * times the workflow throughput of SQLite's defaults here. Exported so a benchmark can start a dev
 * server exactly as `npm start` and the tests do.
 */
export const DEV_SERVER_SQLITE_PRAGMAS: readonly string[] = ['journal_mode=wal', 'synchronous=normal'];

/** The command-line flags that apply DEV_SERVER_SQLITE_PRAGMAS (`temporal server start-dev`, CLI v1.5.1). */
export function devServerSqliteArgs(): string[] {
  return DEV_SERVER_SQLITE_PRAGMAS.flatMap((pragma) => ['--sqlite-pragma', pragma]);
}

export interface RunningTemporal {
  address: string;
  /** The Web UI, when this process started the dev server with it. */
  uiUrl: string | undefined;
  stop(): Promise<void>;
}

export interface TemporalOptions {
  temporalAddress: string | undefined;
  temporalCliPath: string | undefined;
  namespace: string;
  dataDir: string;
  /** The interface its Web UI listens on, and its frontend when it can (HOST: devServerIp). */
  host: string;
  port: number;
  uiPort: number;
  /** False for test runs: no Web UI to bind. */
  ui: boolean;
  /** The codec endpoint the Web UI decodes payloads through (api/codec/codec-server.ts). */
  uiCodecEndpoint?: string;
  log: Logger;
}

/**
 * TEMPORAL_ADDRESS if given. Else a dev server already listening on the port is reused, or one
 * is started from a `temporal` binary found (or built) by `findTemporalCli`; without any binary
 * and without Go, the SDK downloads one.
 */
export async function ensureTemporal(options: TemporalOptions): Promise<RunningTemporal> {
  if (options.temporalAddress) {
    await registerSearchAttributes(options.temporalAddress, options.namespace, options.log);
    return { address: options.temporalAddress, uiUrl: undefined, stop: async () => undefined };
  }
  const { address, uiUrl } = devServerAddresses(options);
  if (await isServing(address)) {
    options.log.info(`reusing the Temporal server already running on ${address}`);
    await registerSearchAttributes(address, options.namespace, options.log);
    return { address, uiUrl, stop: async () => undefined };
  }
  const cliPath = await findTemporalCli(options.temporalCliPath, options.log);
  if (!cliPath) return startDownloadedServer(options);
  const child = startDevServer(cliPath, options);
  try {
    await waitUntilServing(address, child, path.join(options.dataDir, 'temporal.log'));
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  await registerSearchAttributes(address, options.namespace, options.log);
  options.log.info(`Temporal dev server on ${address}${uiUrl ? `, Web UI ${uiUrl}` : ''}`);
  return { address, uiUrl, stop: () => stopChild(child) };
}

/**
 * The dev server's `--ip`: its frontend and internal services bind there, but it reaches those
 * services on 127.0.0.1 whatever `--ip` says (CLI v1.5.1, devserver/server.go). So HOST when that
 * includes 127.0.0.1 (loopback itself, 0.0.0.0, ::); on another single interface the services
 * stay on loopback and only the Web UI (`--ui-ip`) binds HOST.
 */
export function devServerIp(host: string): string {
  return host === LOOPBACK || isUnspecifiedAddress(host) ? host : LOOPBACK;
}

/** Where this machine reaches the dev server's frontend and its Web UI. */
function devServerAddresses(options: TemporalOptions): { address: string; uiUrl: string | undefined } {
  return {
    address: joinHostPort(reachableHost(devServerIp(options.host)), options.port),
    uiUrl: options.ui ? localUrl(options.host, options.uiPort) : undefined,
  };
}

/** Per-user cache outside the checkout, keyed by version, so fresh clones reuse one build. */
export function temporalCliCachePath(): string {
  return path.join(toolCacheDir('temporal-cli', TEMPORAL_CLI_VERSION), 'temporal');
}

export async function findTemporalCli(explicitPath: string | undefined, log: Logger): Promise<string | undefined> {
  if (explicitPath) {
    if (!isExecutable(explicitPath)) throw new Error(`TEMPORAL_CLI_PATH ${explicitPath} is not an executable file`);
    return explicitPath;
  }
  const onPath = (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter(Boolean)
    .map((directory) => path.join(directory, 'temporal'))
    .find(isExecutable);
  if (onPath) return onPath;
  const cached = temporalCliCachePath();
  if (isExecutable(cached)) return cached;
  return buildTemporalCli(cached, log);
}

async function buildTemporalCli(target: string, log: Logger): Promise<string | undefined> {
  if (!goAvailable()) {
    log.warn('no temporal binary and no Go toolchain: falling back to the SDK download');
    return undefined;
  }
  log.info(`building the Temporal CLI ${TEMPORAL_CLI_VERSION} with Go into ${path.dirname(target)} (first run only; takes minutes)`);
  try {
    await buildIntoCache(
      path.dirname(target),
      () => isExecutable(target),
      (partial) => goInstall([TEMPORAL_CLI_MODULE], partial, { label: `the Temporal CLI ${TEMPORAL_CLI_VERSION}`, log }),
    );
  } catch (error) {
    log.warn(`${error instanceof Error ? error.message : String(error)}: falling back to the SDK download`);
    return undefined;
  }
  return isExecutable(target) ? target : undefined;
}

function startDevServer(cliPath: string, options: TemporalOptions): ChildProcess {
  fs.mkdirSync(options.dataDir, { recursive: true });
  const args = [
    'server',
    'start-dev',
    '--ip',
    devServerIp(options.host),
    '--port',
    String(options.port),
    '--namespace',
    options.namespace,
    '--db-filename',
    path.join(options.dataDir, 'temporal.db'),
    ...devServerSqliteArgs(),
    '--log-level',
    'warn',
    ...SEARCH_ATTRIBUTE_KEYS.flatMap((key) => ['--search-attribute', `${key.name}=Keyword`]),
    ...(options.ui ? ['--ui-ip', options.host, '--ui-port', String(options.uiPort)] : ['--headless']),
    ...(options.ui && options.uiCodecEndpoint ? ['--ui-codec-endpoint', options.uiCodecEndpoint] : []),
  ];
  const logFile = fs.openSync(path.join(options.dataDir, 'temporal.log'), 'a');
  options.log.info(`starting ${cliPath} ${args.join(' ')}`);
  return spawn(cliPath, args, { stdio: ['ignore', logFile, logFile] });
}

async function startDownloadedServer(options: TemporalOptions): Promise<RunningTemporal> {
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const environment = await TestWorkflowEnvironment.createLocal({
    server: {
      ip: devServerIp(options.host),
      port: options.port,
      namespace: options.namespace,
      dbFilename: path.join(options.dataDir, 'temporal.db'),
      searchAttributes: [...SEARCH_ATTRIBUTE_KEYS],
      ui: options.ui,
      uiPort: options.ui ? options.uiPort : undefined,
      extraArgs: [...devServerSqliteArgs(), ...(options.ui ? ['--ui-ip', options.host] : [])],
    },
  });
  return { ...devServerAddresses(options), stop: () => environment.teardown() };
}

async function isServing(address: string): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: 1000 });
    await connection.workflowService.getSystemInfo({});
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close().catch(() => undefined);
  }
}

async function waitUntilServing(address: string, child: ChildProcess, logPath: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    // Its log's last lines: a test stack removes the folder it is in.
    if (child.exitCode !== null)
      throw new Error(`temporal dev server exited with code ${child.exitCode}; its log ends: ${lastLines(logPath, 10)}`);
    if (await isServing(address)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`temporal dev server not ready on ${address} after ${READY_TIMEOUT_MS} ms`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timeout = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timeout);
}

function lastLines(file: string, count: number): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-count).join('\n');
  } catch (error) {
    return `(unreadable: ${error instanceof Error ? error.message : String(error)})`;
  }
}
