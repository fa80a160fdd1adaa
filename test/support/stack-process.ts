import type { ChildProcess } from 'node:child_process';

/** How long the stack may take to stop its worker, Temporal and Postgres before it is killed. */
const STOP_GRACE_MS = 30_000;

/**
 * Stops the test stack process (global setup started it in a process group of its own): SIGTERM
 * for an orderly stop, then, if it is still there after the grace period, SIGKILL to the whole
 * group, which takes the Temporal dev server and Postgres with it.
 */
export async function stopTestStack(child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = await Promise.race([
      exited.then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), STOP_GRACE_MS))),
    ]);
    clearTimeout(timer);
    if (gaveUp) process.stderr.write(`test stack did not stop within ${STOP_GRACE_MS} ms: killing its process group\n`);
  }
  // Whatever of its group is left (all of it if it did not stop; nothing after an orderly stop).
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // The group is gone.
  }
}
