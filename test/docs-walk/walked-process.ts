import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';

/**
 * A documented command run as a user runs it in a terminal: `bash -c COMMAND` in a process group of
 * its own (a terminal's foreground group), output kept in a log file and in memory, stopped the way
 * Ctrl-C stops it (SIGINT to the whole group). Every process it ever started is remembered by pid
 * and start time, so one left running after the stop is found even if it changed its group or lost
 * its parent.
 */
export class WalkedProcess {
  private text = '';
  private readonly seen = new Map<string, { pid: number; command: string }>();
  private readonly poll: NodeJS.Timeout;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(private readonly child: ChildProcess) {
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    this.poll = setInterval(() => this.remember(), 500);
    void this.exited.then(() => clearInterval(this.poll));
  }

  static start(command: string, cwd: string, env: NodeJS.ProcessEnv, logPath: string): WalkedProcess {
    const log = fs.openSync(logPath, 'a');
    const child = spawn('bash', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const walked = new WalkedProcess(child);
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding('utf8').on('data', (chunk: string) => {
        walked.text += chunk;
        fs.appendFileSync(log, chunk);
      });
    }
    void walked.exited.then(() => fs.closeSync(log));
    return walked;
  }

  get output(): string {
    return this.text;
  }

  /** The last lines of its output, for a failure's report. */
  tail(lines = 40): string {
    return this.text.trimEnd().split('\n').slice(-lines).join('\n');
  }

  /** Resolves with the first match of `pattern` in its output; rejects when it exits first or the time is up. */
  async waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
    const deadline = Date.now() + timeoutMs;
    let ended = false;
    void this.exited.then(() => (ended = true));
    for (;;) {
      const match = pattern.exec(this.text);
      if (match !== null) return match;
      if (ended) throw new Error(`it exited before printing ${pattern}`);
      if (Date.now() > deadline) throw new Error(`it did not print ${pattern} within ${Math.round(timeoutMs / 1000)} s`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** The process ids of the command and everything below it, now. */
  livingTree(): number[] {
    this.remember();
    return descendantsOf(this.child.pid ?? -1);
  }

  /**
   * Ctrl-C: SIGINT to the group, then up to `timeoutMs` for the command and every process it ever
   * started to end. Whatever is still running then is killed and returned as "pid command" lines.
   */
  async stopLikeCtrlC(timeoutMs: number): Promise<string[]> {
    this.remember();
    signalGroup(this.child.pid, 'SIGINT');
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && this.stillRunning().length > 0) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const left = this.stillRunning();
    this.kill();
    return left.map(({ pid, command }) => `${pid} ${command}`);
  }

  /** SIGKILL to the group and to every process it ever started: the walk's own emergency stop. */
  kill(): void {
    signalGroup(this.child.pid, 'SIGKILL');
    for (const { pid } of this.stillRunning()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Ended in between.
      }
    }
  }

  private remember(): void {
    for (const pid of descendantsOf(this.child.pid ?? -1)) {
      const identity = identityOf(pid);
      if (identity !== undefined && !this.seen.has(identity)) this.seen.set(identity, { pid, command: commandOf(pid) });
    }
  }

  private stillRunning(): Array<{ pid: number; command: string }> {
    return [...this.seen.entries()].filter(([identity, { pid }]) => identityOf(pid) === identity).map(([, process]) => process);
  }
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Nothing of that group is left.
  }
}

/** The process and its descendants, by parent id, from /proc. */
function descendantsOf(root: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const stat = statOf(pid);
    if (stat === undefined || stat.state === 'Z') continue;
    parents.set(stat.ppid, [...(parents.get(stat.ppid) ?? []), pid]);
  }
  const tree: number[] = [];
  const queue = statOf(root) === undefined ? [] : [root];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    tree.push(pid);
    queue.push(...(parents.get(pid) ?? []));
  }
  return tree;
}

/** pid and start time: one process, even after its pid is reused. Undefined once it has ended (zombies included). */
function identityOf(pid: number): string | undefined {
  const stat = statOf(pid);
  return stat === undefined || stat.state === 'Z' ? undefined : `${pid}@${stat.startTime}`;
}

function statOf(pid: number): { state: string; ppid: number; startTime: string } | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: the fields after it start at the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', ppid: Number(fields[1]), startTime: fields[19] ?? '' };
}

function commandOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '').split('\0').join(' ');
  } catch {
    return '(ended)';
  }
}
