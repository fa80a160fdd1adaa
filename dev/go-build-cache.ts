import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../core/logger';

/**
 * What the tools we build from their Go modules (the Temporal CLI and server, Toxiproxy, geth, btcd)
 * share: a per-user cache outside the checkout keyed by tool and version, so fresh clones reuse one
 * build, and a build that lands whole or not at all.
 */

/** `~/.cache/fintech-partner-api/<tool>/<version>` (or under XDG_CACHE_HOME). */
export function toolCacheDir(tool: string, version: string): string {
  const cacheRoot = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cacheRoot, 'fintech-partner-api', tool, version);
}

export function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

export function goAvailable(): boolean {
  return spawnSync('go', ['version']).status === 0;
}

/** A first build takes minutes: one line this often says it is still going and how far. */
const PROGRESS_EVERY_MS = 20_000;
/** Go's last lines, shown when the build fails. */
const KEPT_OUTPUT_LINES = 40;

/** Who is built and who hears of it: `label` names it in the progress lines ("geth v1.17.10"). */
export interface GoBuildProgress {
  label: string;
  log: Logger;
}

/**
 * `go install -v` of pinned packages (`module/cmd/x@version`) into `binDir`, without blocking the event loop (what else
 * starts meanwhile goes on), after any other build of this process. `-v` names each package as it is compiled: the progress lines count them and the modules
 * downloaded; Go's last lines are in the error when it fails.
 */
export function goInstall(packages: readonly string[], binDir: string, progress: GoBuildProgress): Promise<void> {
  // One at a time: two first builds at once on 2 cores took over 548 s against 293 s one after the other.
  const turn = buildsInThisProcess.then(() => runGoInstall(packages, binDir, progress));
  buildsInThisProcess = turn.catch(() => undefined);
  return turn;
}

let buildsInThisProcess: Promise<unknown> = Promise.resolve();

async function runGoInstall(packages: readonly string[], binDir: string, progress: GoBuildProgress): Promise<void> {
  const startedMs = Date.now();
  const counts = { downloaded: 0, compiled: 0 };
  const kept: string[] = [];
  const child = spawn('go', ['install', '-v', ...packages], { env: { ...process.env, GOBIN: binDir }, stdio: ['ignore', 'pipe', 'pipe'] });
  let partialLine = '';
  const onOutput = (chunk: Buffer) => {
    const lines = (partialLine + chunk.toString('utf8')).split('\n');
    partialLine = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith('go: downloading ')) counts.downloaded += 1;
      else if (/^[\w.-]+(\/[\w.~+-]+)*$/.test(line)) counts.compiled += 1;
      kept.push(line);
      if (kept.length > KEPT_OUTPUT_LINES) kept.shift();
    }
  };
  child.stdout.on('data', onOutput);
  child.stderr.on('data', onOutput);
  const timer = setInterval(() => {
    const seconds = Math.round((Date.now() - startedMs) / 1000);
    progress.log.info(
      `building ${progress.label}: ${seconds} s so far, ${counts.downloaded} modules downloaded, ${counts.compiled} packages compiled`,
    );
  }, PROGRESS_EVERY_MS);
  try {
    const outcome = await new Promise<{ code: number | null; error?: Error }>((resolve) => {
      child.once('error', (error) => resolve({ code: null, error }));
      child.once('close', (code) => resolve({ code }));
    });
    if (outcome.code !== 0) {
      const reason = outcome.error?.message ?? `exit code ${outcome.code}`;
      throw new Error(`go install ${packages.join(' ')} failed with ${reason}; Go's last lines:\n${[...kept, partialLine].join('\n')}`);
    }
  } finally {
    clearInterval(timer);
  }
  progress.log.info(`built ${progress.label} in ${Math.round((Date.now() - startedMs) / 1000)} s (${counts.compiled} packages)`);
}

/**
 * Runs `build` into a folder of its own (with an empty `bin/`) and renames it to `dir`, so a build
 * cut short leaves nothing half-made and two runs building at once both end with one complete cache.
 */
export async function buildIntoCache(
  dir: string,
  isComplete: (dir: string) => boolean,
  build: (partial: string) => Promise<void>,
): Promise<void> {
  const partial = `${dir}.partial-${process.pid}`;
  fs.rmSync(partial, { recursive: true, force: true });
  fs.mkdirSync(path.join(partial, 'bin'), { recursive: true });
  try {
    await build(partial);
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    try {
      fs.renameSync(partial, dir);
    } catch (error) {
      // Another run finished first: its build is the same.
      if (!isComplete(dir)) throw error;
    }
  } finally {
    fs.rmSync(partial, { recursive: true, force: true });
  }
}
