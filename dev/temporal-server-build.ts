import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../core/logger';
import { buildIntoCache, goAvailable, goInstall, isExecutable, toolCacheDir } from './go-build-cache';

/** The Temporal server we ship (docker-compose.yml runs the same version). */
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
const SERVER_MODULE = 'go.temporal.io/server';
/** The server (all services in one binary) and temporal-sql-tool, built from the module as published: no replace directives. */
const PACKAGES = [`${SERVER_MODULE}/cmd/server@${TEMPORAL_SERVER_VERSION}`, `${SERVER_MODULE}/cmd/tools/sql@${TEMPORAL_SERVER_VERSION}`];
/** What the cluster needs from the module's sources besides the binaries, copied next to them. */
const MODULE_FILES = ['schema/postgresql/v12', 'config/development-postgres12.yaml'];

/** One version's build: the two binaries and the module's own schema and configuration files. */
export interface TemporalServerBuild {
  serverPath: string;
  sqlToolPath: string;
  /** `versioned` migrations of one of the two databases (`temporal`, `visibility`). */
  versionedSchemaDir(schema: 'temporal' | 'visibility'): string;
  /** The module's `config/development-postgres12.yaml`, the base of the cluster's configuration. */
  baseConfigPath: string;
}

/** Per-user cache outside the checkout, keyed by version, like the Temporal CLI's (dev/temporal-dev-server.ts). */
export function temporalServerCacheDir(): string {
  return toolCacheDir('temporal-server', TEMPORAL_SERVER_VERSION);
}

/** The cached build, or a new one with Go (minutes on a fresh machine, seconds with a warm Go cache). */
export async function ensureTemporalServerBuild(log: Logger): Promise<TemporalServerBuild> {
  const dir = temporalServerCacheDir();
  if (!isComplete(dir)) await buildInto(dir, log);
  return buildAt(dir);
}

/** Why the server cannot be had (no cached build and no Go to build it), checked before any long work; undefined when it can. */
export function temporalServerBuildProblem(): string | undefined {
  return isComplete(temporalServerCacheDir()) ? undefined : goProblem();
}

function buildAt(dir: string): TemporalServerBuild {
  return {
    serverPath: path.join(dir, 'bin', 'server'),
    sqlToolPath: path.join(dir, 'bin', 'sql'),
    versionedSchemaDir: (schema) => path.join(dir, 'schema', 'postgresql', 'v12', schema, 'versioned'),
    baseConfigPath: path.join(dir, 'config', 'development-postgres12.yaml'),
  };
}

function isComplete(dir: string): boolean {
  const build = buildAt(dir);
  return isExecutable(build.serverPath) && isExecutable(build.sqlToolPath) && fs.existsSync(build.baseConfigPath);
}

async function buildInto(dir: string, log: Logger): Promise<void> {
  requireGo();
  log.info(`building the Temporal server ${TEMPORAL_SERVER_VERSION} and its SQL tool with Go into ${dir} (first run only; takes minutes)`);
  await buildIntoCache(dir, isComplete, async (partial) => {
    await goInstall(PACKAGES, path.join(partial, 'bin'), { label: `the Temporal server ${TEMPORAL_SERVER_VERSION}`, log });
    const moduleDir = downloadedModuleDir();
    for (const file of MODULE_FILES) copyWritable(path.join(moduleDir, file), path.join(partial, file));
  });
}

function requireGo(): void {
  const problem = goProblem();
  if (problem !== undefined) throw new Error(problem);
}

function goProblem(): string | undefined {
  if (goAvailable()) return undefined;
  return `the Temporal server ${TEMPORAL_SERVER_VERSION} is built with Go on first use: install Go (https://go.dev/dl/) and retry`;
}

/** Where Go keeps the module's sources (`go install` has just downloaded them). */
function downloadedModuleDir(): string {
  const output = run('go', ['mod', 'download', '-json', `${SERVER_MODULE}@${TEMPORAL_SERVER_VERSION}`], {});
  const { Dir } = JSON.parse(output) as { Dir?: string };
  if (!Dir || !fs.existsSync(Dir))
    throw new Error(`go mod download did not give the sources of ${SERVER_MODULE}@${TEMPORAL_SERVER_VERSION}`);
  return Dir;
}

function run(command: string, args: string[], env: Record<string, string>): string {
  const result = spawnSync(command, args, {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 16 * 1024 * 1024,
  });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed with ${result.error?.message ?? `exit code ${result.status}`}`);
  return result.stdout;
}

/** The module cache is read-only; the copy must not be, or the cache could not be cleared. */
function copyWritable(source: string, target: string): void {
  if (fs.statSync(source).isDirectory()) {
    fs.mkdirSync(target, { recursive: true });
    for (const entry of fs.readdirSync(source)) copyWritable(path.join(source, entry), path.join(target, entry));
    return;
  }
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, fs.readFileSync(source));
}
