import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { Logger } from '../../../core/logger';
import { freePort } from '../../../dev/free-port';
import { ensureToxiproxyBuild } from '../../../dev/toxiproxy-build';
import { ToxiproxyClient } from '../../../dev/toxiproxy-client';
import { killProcessGroup, spawnRecorded } from '../../support/processes';

const READY_TIMEOUT_MS = 15_000;

export interface RunningToxiproxy {
  client: ToxiproxyClient;
  stop(): Promise<void>;
}

/**
 * The Toxiproxy server (built or taken from the cache) on a free loopback port, in a process
 * group of its own recorded under `dataDir` (so a run that dies leaves nothing behind), logging
 * to `logFile`. `seed` seeds its own randomness (jitter, toxicity), so a run's seed replays it too.
 */
export async function startToxiproxy(options: { dataDir: string; logFile: string; seed: number; log: Logger }): Promise<RunningToxiproxy> {
  const binary = await ensureToxiproxyBuild(options.log);
  const port = await freePort();
  const fd = fs.openSync(options.logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawnRecorded(options.dataDir, binary, ['-host', '127.0.0.1', '-port', String(port), '-seed', String(options.seed)], {
      stdio: ['ignore', fd, fd],
    });
  } finally {
    fs.closeSync(fd);
  }
  const client = new ToxiproxyClient(`http://127.0.0.1:${port}`);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`toxiproxy exited (${child.exitCode ?? child.signalCode}) before it answered; see ${options.logFile}`);
    }
    try {
      await client.version();
      break;
    } catch (error) {
      if (Date.now() >= deadline) {
        await killProcessGroup(child);
        throw new Error(`toxiproxy did not answer within ${READY_TIMEOUT_MS} ms (${String(error)}); see ${options.logFile}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return { client, stop: () => killProcessGroup(child) };
}
