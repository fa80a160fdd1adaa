import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../core/logger';
import { buildIntoCache, goAvailable, goInstall, isExecutable, toolCacheDir } from './go-build-cache';

/**
 * Toxiproxy (github.com/Shopify/toxiproxy), the TCP proxy the chaos run puts between every
 * process and what it talks to. Not on npm: built from its Go module as published, pinned, into a
 * per-user cache like the Temporal server (dev/temporal-server-build.ts). The newest version the
 * Go module proxy lists (`go list -m -versions github.com/Shopify/toxiproxy/v2`).
 */
export const TOXIPROXY_VERSION = 'v2.5.0';
const PACKAGE = `github.com/Shopify/toxiproxy/v2/cmd/server@${TOXIPROXY_VERSION}`;

/** Per-user cache outside the checkout, keyed by version. */
export function toxiproxyCacheDir(): string {
  return toolCacheDir('toxiproxy', TOXIPROXY_VERSION);
}

/** The server binary of the pinned version: the cached one, or a new build with Go (about 30 s on a fresh machine). */
export async function ensureToxiproxyBuild(log: Logger): Promise<string> {
  const dir = toxiproxyCacheDir();
  if (!isExecutable(serverPath(dir))) {
    const problem = toxiproxyBuildProblem();
    if (problem !== undefined) throw new Error(problem);
    log.info(`building Toxiproxy ${TOXIPROXY_VERSION} with Go into ${dir} (first run only)`);
    await buildIntoCache(
      dir,
      (built) => isExecutable(serverPath(built)),
      async (partial) => {
        await goInstall([PACKAGE], path.join(partial, 'bin'), { label: `Toxiproxy ${TOXIPROXY_VERSION}`, log });
        // `go install` names the binary after its package folder (`server`): ours says what it is.
        fs.renameSync(path.join(partial, 'bin', 'server'), serverPath(partial));
      },
    );
  }
  return serverPath(dir);
}

/** Why Toxiproxy cannot be had (no cached build and no Go to build it), checked in seconds before any long work; undefined when it can. */
export function toxiproxyBuildProblem(): string | undefined {
  if (isExecutable(serverPath(toxiproxyCacheDir())) || goAvailable()) return undefined;
  return `Toxiproxy ${TOXIPROXY_VERSION} is built with Go on first use (go install ${PACKAGE}): install Go (https://go.dev/dl/) and retry`;
}

function serverPath(dir: string): string {
  return path.join(dir, 'bin', 'toxiproxy-server');
}
