import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { killProcessGroup } from '../../support/processes';

const STOP_GRACE_MS = 15_000;

export type ProcessKind = 'postgres' | 'temporal' | 'api' | 'worker';

/**
 * One process of a fault stack (test/faults/support/harness.ts): started, killed (SIGKILL to its
 * group), paused and resumed (SIGSTOP/SIGCONT to its group), stopped (SIGTERM) and started again
 * the same way.
 */
export class StackProcess {
  private child: ChildProcess | undefined;
  private starts = 0;
  /** SIGSTOPped and not yet continued. */
  paused = false;
  /** Where its Prometheus metrics are served, when it serves them (set by its launch). */
  metricsUrl: string | undefined;

  constructor(
    readonly name: string,
    readonly kind: ProcessKind,
    private readonly launch: (logFile: string) => Promise<ChildProcess>,
    readonly logFile: string,
  ) {}

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Its process group's id (the group leader's pid), while it runs. */
  get groupId(): number | undefined {
    return this.running ? this.child?.pid : undefined;
  }

  /** How many times it was started. */
  get startCount(): number {
    return this.starts;
  }

  /** The process's exit, for a fault worker that kills itself. */
  exited(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => child.once('exit', () => resolve()));
  }

  async start(): Promise<void> {
    if (this.running) throw new Error(`${this.name} is already running`);
    this.starts += 1;
    fs.appendFileSync(this.logFile, `\n==== start #${this.starts} at ${new Date().toISOString()} ====\n`);
    this.child = await this.launch(this.logFile);
    this.paused = false;
  }

  /** SIGKILL to the whole group (tsx, the script, and whatever it started: Postgres and its backends, the dev server). */
  async kill(): Promise<void> {
    if (this.child) await killProcessGroup(this.child);
    this.child = undefined;
    this.paused = false;
  }

  /** SIGSTOP to the whole group: every process of it stops where it is, its sockets open, until resume(). */
  pause(): void {
    if (!this.signalGroup('SIGSTOP')) return;
    this.paused = true;
  }

  /** SIGCONT to the whole group. */
  resume(): void {
    this.signalGroup('SIGCONT');
    this.paused = false;
  }

  /** SIGTERM for an orderly stop (after a SIGCONT: a stopped process cannot stop), SIGKILL to the group after the grace period. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child?.pid) return;
    if (child.exitCode === null && child.signalCode === null) {
      if (this.paused) this.resume();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // gone already
      }
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS)))]);
      clearTimeout(timer);
    }
    await killProcessGroup(child);
    this.child = undefined;
    this.paused = false;
  }

  async restart(): Promise<void> {
    await this.kill();
    await this.start();
  }

  private signalGroup(signal: NodeJS.Signals): boolean {
    const pid = this.groupId;
    if (pid === undefined) return false;
    try {
      process.kill(-pid, signal);
      return true;
    } catch {
      return false; // the group is gone
    }
  }
}
