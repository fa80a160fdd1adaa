import path from 'node:path';
import type { Logger } from '../core/logger';
import { buildIntoCache, goAvailable, goInstall, isExecutable, toolCacheDir } from './go-build-cache';

/**
 * btcd (github.com/btcsuite/btcd), the Bitcoin node of `npm start`'s regtest chain and the tests: not on npm nor in Debian,
 * built from its Go module as published, pinned, into the per-user cache like geth (about 10 s with a warm Go cache, under a
 * minute without). v0.26.2 is the newest tag the module proxy lists (`go list -m -versions github.com/btcsuite/btcd`).
 */
export const BTCD_VERSION = 'v0.26.2';
const PACKAGE = `github.com/btcsuite/btcd@${BTCD_VERSION}`;

export function btcdCacheDir(): string {
  return toolCacheDir('btcd', BTCD_VERSION);
}

/** The btcd binary: BTCD_PATH when given, else the cached build of the pinned version, else a new build with Go. */
export async function ensureBtcdBuild(explicitPath: string | undefined, log: Logger): Promise<string> {
  if (explicitPath) {
    if (!isExecutable(explicitPath)) throw new Error(`BTCD_PATH ${explicitPath} is not an executable file`);
    return explicitPath;
  }
  const dir = btcdCacheDir();
  if (!isExecutable(btcdPath(dir))) {
    const problem = btcdBuildProblem(undefined);
    if (problem !== undefined) throw new Error(problem);
    log.info(`building btcd ${BTCD_VERSION} with Go into ${dir} (first run only)`);
    await buildIntoCache(
      dir,
      (built) => isExecutable(btcdPath(built)),
      (partial) => goInstall([PACKAGE], path.join(partial, 'bin'), { label: `btcd ${BTCD_VERSION}`, log }),
    );
  }
  return btcdPath(dir);
}

/** Why btcd cannot be had (no BTCD_PATH, no cached build and no Go to build it); undefined when it can. */
export function btcdBuildProblem(explicitPath: string | undefined): string | undefined {
  if (explicitPath || isExecutable(btcdPath(btcdCacheDir())) || goAvailable()) return undefined;
  return `bitcoin's local chain is btcd ${BTCD_VERSION}, built with Go on first use (go install ${PACKAGE}): install Go (https://go.dev/dl/) or set BTCD_PATH`;
}

function btcdPath(dir: string): string {
  return path.join(dir, 'bin', 'btcd');
}
