import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { assertLedgerHolds } from './ledger-check';
import { killRecordedProcesses } from './processes';
import { stopTestStack } from './stack-process';

/**
 * After the whole suite: every process a test started and left running is killed (a failed or
 * timed-out test may not have stopped it); the ledger must still hold (every transfer balanced,
 * every cached balance equal to its postings, no partner below zero, no hold without an open
 * operation to explain it); then the test stack stops, whatever the check found.
 */
export default async function globalTeardown(): Promise<void> {
  const child = (globalThis as { testStackProcess?: ChildProcess }).testStackProcess;
  const stack = JSON.parse(process.env.TEST_STACK ?? '{}') as { databaseUrl?: string; dataDir?: string };
  try {
    if (stack.dataDir) {
      for (const leftover of killRecordedProcesses(stack.dataDir))
        process.stderr.write(`killed a process a test left running: ${leftover}\n`);
    }
    if (stack.databaseUrl) await assertLedgerHolds(stack.databaseUrl, 'after the suite');
  } finally {
    if (child) await stopTestStack(child);
    // The stack removes its folder itself; this catches a stack that could not.
    if (stack.dataDir) fs.rmSync(stack.dataDir, { recursive: true, force: true });
  }
}
