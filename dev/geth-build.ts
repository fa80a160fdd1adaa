import path from 'node:path';
import type { Logger } from '../core/logger';
import { buildIntoCache, goAvailable, goInstall, isExecutable, toolCacheDir } from './go-build-cache';

/**
 * geth (github.com/ethereum/go-ethereum), the Ethereum client `npm start` runs as its local
 * development chain (dev/development-chain.ts). Not on npm: built from its Go module as published,
 * pinned, into a per-user cache like the Temporal CLI and Toxiproxy. v1.17.10 is the newest tag
 * the Go module proxy lists (`go list -m -versions github.com/ethereum/go-ethereum`); its go.mod
 * has no `replace` directive, so `go install pkg@version` works.
 */
export const GETH_VERSION = 'v1.17.10';
const PACKAGE = `github.com/ethereum/go-ethereum/cmd/geth@${GETH_VERSION}`;

/** Per-user cache outside the checkout, keyed by version. */
export function gethCacheDir(): string {
  return toolCacheDir('geth', GETH_VERSION);
}

/**
 * The geth binary: GETH_PATH when given (it must be an executable file), else the cached build of
 * the pinned version, else a new build with Go (about 5 minutes on 2 cores, once per machine).
 * Not taken from PATH: the flags and the database layout it is started with are this version's.
 */
export async function ensureGethBuild(explicitPath: string | undefined, log: Logger): Promise<string> {
  if (explicitPath) {
    if (!isExecutable(explicitPath)) throw new Error(`GETH_PATH ${explicitPath} is not an executable file`);
    return explicitPath;
  }
  const dir = gethCacheDir();
  if (!isExecutable(gethPath(dir))) {
    const problem = gethBuildProblem(undefined);
    if (problem !== undefined) throw new Error(problem);
    log.info(`building geth ${GETH_VERSION} with Go into ${dir} (first run only; takes minutes)`);
    await buildIntoCache(
      dir,
      (built) => isExecutable(gethPath(built)),
      (partial) => goInstall([PACKAGE], path.join(partial, 'bin'), { label: `geth ${GETH_VERSION}`, log }),
    );
  }
  return gethPath(dir);
}

/** Why geth cannot be had (no GETH_PATH, no cached build and no Go to build it); undefined when it can. */
export function gethBuildProblem(explicitPath: string | undefined): string | undefined {
  if (explicitPath || isExecutable(gethPath(gethCacheDir())) || goAvailable()) return undefined;
  return (
    `the local development chain is geth ${GETH_VERSION}, built with Go on first use (go install ${PACKAGE}): ` +
    'install Go (https://go.dev/dl/), or set GETH_PATH to a geth binary of that version, or run with CHAIN=simulated'
  );
}

function gethPath(dir: string): string {
  return path.join(dir, 'bin', 'geth');
}
