import { spawn } from 'node:child_process';
import { newPayloadKeyEntry } from '../../core/payload-codec';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { stopTestStack } from './stack-process';

const READY_PREFIX = 'TEST_STACK_READY ';
// The first run on a machine may build the Temporal CLI, or with TEST_TEMPORAL=cluster the server (minutes each).
const START_TIMEOUT_MS = 20 * 60 * 1000;

/**
 * Starts the test stack process once per jest run and hands its addresses to the tests. The
 * stack runs in a process group of its own (with its Temporal dev server and Postgres), so the
 * teardown can kill all of it if it does not stop in time; if jest dies without a teardown, the
 * stack sees its stdin close and stops itself.
 */
export default async function globalSetup(): Promise<void> {
  // One key per run, inherited by the stack, every jest worker and every process a test starts.
  process.env.PAYLOAD_ENCRYPTION_KEYS ??= newPayloadKeyEntry('test-run');
  const root = path.resolve(__dirname, '../..');
  const child = spawn(process.execPath, [path.join(root, 'node_modules/tsx/dist/cli.mjs'), 'test/support/test-stack.main.ts'], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'inherit'],
    env: process.env,
    detached: true,
  });
  (globalThis as { testStackProcess?: ChildProcess }).testStackProcess = child;
  try {
    const stack = await new Promise<Record<string, string>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('test stack did not start in time')), START_TIMEOUT_MS);
      child.once('exit', (code) => reject(new Error(`test stack exited with code ${code}`)));
      readline.createInterface({ input: child.stdout }).on('line', (line) => {
        if (!line.startsWith(READY_PREFIX)) {
          process.stderr.write(`${line}\n`);
          return;
        }
        clearTimeout(timer);
        resolve(JSON.parse(line.slice(READY_PREFIX.length)) as Record<string, string>);
      });
    });
    process.env.TEST_STACK = JSON.stringify(stack);
  } catch (error) {
    // Jest runs no teardown after a failed setup: stop whatever started.
    await stopTestStack(child);
    throw error;
  }
}
