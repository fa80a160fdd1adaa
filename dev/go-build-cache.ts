import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * What the tools we build from their Go modules (the Temporal CLI and server, Toxiproxy, geth)
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

/** `go install` of pinned packages (`module/cmd/x@version`) into `binDir`; Go's own output goes to our stderr. */
export function goInstall(packages: readonly string[], binDir: string): void {
  const result = spawnSync('go', ['install', ...packages], {
    env: { ...process.env, GOBIN: binDir },
    encoding: 'utf8',
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0)
    throw new Error(`go install ${packages.join(' ')} failed with ${result.error?.message ?? `exit code ${result.status}`}`);
}

/**
 * Runs `build` into a folder of its own (with an empty `bin/`) and renames it to `dir`, so a build
 * cut short leaves nothing half-made and two runs building at once both end with one complete cache.
 */
export function buildIntoCache(dir: string, isComplete: (dir: string) => boolean, build: (partial: string) => void): void {
  const partial = `${dir}.partial-${process.pid}`;
  fs.rmSync(partial, { recursive: true, force: true });
  fs.mkdirSync(path.join(partial, 'bin'), { recursive: true });
  try {
    build(partial);
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
