import { spawn } from 'node:child_process';
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Every process a test starts runs in a process group of its own (tsx runs the script in a
 * child of its own, and both must go together), recorded in a folder of the run. The test stops
 * it in its afterAll; whatever a failed or timed-out test file left running, the global teardown
 * (or, if jest itself dies, the test stack) kills from that record.
 */

const ROOT = path.resolve(__dirname, '../..');
const TSX_CLI = path.join(ROOT, 'node_modules/tsx/dist/cli.mjs');

/** The record of a run's test processes: one file per process group, named by its id. */
export function processRecordDir(dataDir: string): string {
  return path.join(dataDir, 'test-processes');
}

/** Starts a TypeScript entry point of this repository (e.g. `main/worker.main.ts`) through tsx, recorded. */
export function spawnTsx(
  dataDir: string,
  script: string,
  args: readonly string[],
  options: Omit<SpawnOptions, 'detached' | 'cwd'> = {},
): ChildProcess {
  return spawnRecorded(dataDir, process.execPath, [TSX_CLI, script, ...args], options);
}

/** Starts any program (e.g. a Go binary) from the repository's root in a process group of its own, recorded like spawnTsx's. */
export function spawnRecorded(
  dataDir: string,
  command: string,
  args: readonly string[],
  options: Omit<SpawnOptions, 'detached' | 'cwd'> = {},
): ChildProcess {
  const child = spawn(command, [...args], { ...options, cwd: ROOT, detached: true });
  if (child.pid === undefined) return child; // spawn failed: the 'error' event tells the caller
  const recordDir = processRecordDir(dataDir);
  fs.mkdirSync(recordDir, { recursive: true });
  const record = path.join(recordDir, String(child.pid));
  fs.writeFileSync(record, commandLineOf(child.pid) ?? [command, ...args].join('\0'));
  child.once('exit', () => fs.rmSync(record, { force: true }));
  return child;
}

/** Runs a TypeScript entry point through tsx to its end, recorded while it runs. */
export async function runTsx(
  dataDir: string,
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawnTsx(dataDir, script, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode, signal) => resolve(exitCode ?? (signal ? 128 : 1)));
  });
  return { code, stdout, stderr };
}

/** Kills the child's whole process group and waits until the child has exited. */
export async function killProcessGroup(child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return;
  const exited =
    child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', resolve));
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // The whole group is gone already.
  }
  await exited;
}

/**
 * Kills every recorded process group that still runs (SIGKILL: a test that left it running is
 * not waiting for an orderly stop). Synchronous, so it also works from an exit handler.
 * Returns the command lines it killed.
 */
export function killRecordedProcesses(dataDir: string): string[] {
  const recordDir = processRecordDir(dataDir);
  let entries: string[];
  try {
    entries = fs.readdirSync(recordDir);
  } catch {
    return [];
  }
  const killed: string[] = [];
  for (const entry of entries) {
    const pid = Number(entry);
    const recorded = fs.readFileSync(path.join(recordDir, entry), 'utf8');
    fs.rmSync(path.join(recordDir, entry), { force: true });
    // The group leader may have exited while its children live on: kill by group either way,
    // unless its id now belongs to an unrelated process.
    const current = commandLineOf(pid);
    if (!Number.isInteger(pid) || (current !== undefined && current !== recorded)) continue;
    try {
      process.kill(-pid, 'SIGKILL');
      killed.push(recorded.split('\0').join(' '));
    } catch {
      // Nothing of that group is left.
    }
  }
  return killed;
}

function commandLineOf(pid: number): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0$/, '');
  } catch {
    return undefined;
  }
}
