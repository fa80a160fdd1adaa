import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const PROJECT_ROOT = path.resolve(__dirname, '..');

/** How long a child may take to stop after SIGTERM before it is killed. */
const STOP_GRACE_MS = 15_000;
/** How long a child may take to become ready (the worker bundles its workflows first). */
const READY_TIMEOUT_MS = 120_000;

export interface BenchChild {
  name: string;
  /** The process that runs the script itself (not a wrapper), so /proc figures are its own. */
  pid: number;
  child: ChildProcess;
  logFile: string;
  /** Properties, not methods: handed around unbound (to the lifecycle). */
  stop: () => Promise<void>;
  kill: () => void;
}

/**
 * Runs a TypeScript entry point in ONE Node process (`node --import tsx`, where the tsx CLI would
 * add a wrapper process), so its RSS and CPU in /proc are the script's own. Output goes to a log file.
 */
export function spawnScript(name: string, script: string, env: NodeJS.ProcessEnv, logDir: string): BenchChild {
  fs.mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, `${name}.log`);
  const log = fs.openSync(logFile, 'w');
  // BENCH_CPU_PROFILE_DIR: each child writes a V8 CPU profile there when it stops (see docs/benchmarks.md).
  const profileDir = process.env.BENCH_CPU_PROFILE_DIR;
  const profiling = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.join(profileDir, name)}`] : [];
  const child = spawn(process.execPath, [...profiling, '--import', 'tsx', script], { cwd: PROJECT_ROOT, env, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  if (child.pid === undefined) throw new Error(`could not start ${name} (${script})`);
  return { name, pid: child.pid, child, logFile, stop: () => stopChild(child), kill: () => child.kill('SIGKILL') };
}

/** SIGTERM for an orderly stop (the entry points close their pools and connections), SIGKILL after a grace period. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

/** Polls `probe` until it answers true; fails early if the child exits, naming its log. */
export async function waitUntilReady(target: BenchChild, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (target.child.exitCode !== null || target.child.signalCode !== null) {
      throw new Error(`${target.name} exited before it was ready; see ${target.logFile}`);
    }
    if (await probe().catch(() => false)) return;
    await sleep(200);
  }
  throw new Error(`${target.name} not ready after ${READY_TIMEOUT_MS} ms; see ${target.logFile}`);
}

export async function httpAnswers(url: string): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
  await response.arrayBuffer();
  return response.status < 500;
}

/** Resident memory of a process in bytes (VmRSS), or null once it is gone. */
export function residentBytes(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** CPU time (user + system) a process has used so far, in seconds, or null once it is gone. */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name; in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/**
 * CPU time (user + system) of a process and all its live descendants so far, with what their
 * exited children used (a Postgres backend that closed): the whole of a server such as Postgres
 * (its postmaster and every backend) or the Temporal dev server. Null once the root is gone.
 */
export function treeCpuSeconds(rootPid: number): number | null {
  const own = statFields(rootPid);
  if (!own) return null;
  // utime, stime, cutime, cstime: fields 14 to 17 of the line, 12 to 15 after the name.
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const child of childrenOf(rootPid)) ticks += (treeCpuSeconds(child) ?? 0) * 100;
  return ticks / 100;
}

/** The direct children of a process, from every thread's children list (Linux). */
export function childrenOf(pid: number): number[] {
  try {
    return fs
      .readdirSync(`/proc/${pid}/task`)
      .flatMap((thread) => fs.readFileSync(`/proc/${pid}/task/${thread}/children`, 'utf8').trim().split(/\s+/))
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** A process's command name (comm), or null once it is gone. */
export function commandName(pid: number): string | null {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return null;
  }
}

function statFields(pid: number): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
