import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { LOOPBACK } from '../../../core/listen-address';
import { newPayloadKeyEntry } from '../../../core/payload-codec';
import { freePort } from '../../../dev/free-port';
import { prepareDatabase } from '../../../db/database-setup';
import { embeddedDatabaseUrls } from '../../../dev/embedded-postgres';
import { killProcessGroup, killRecordedProcesses, spawnTsx } from '../../support/processes';
import { RAILS } from '../../../core/rails';

/**
 * The fault campaign's own stack, every piece a process (group) it can SIGKILL and start again:
 * an embedded Postgres and a Temporal dev server (test/faults/support/infrastructure.main.ts),
 * each on a free port kept across restarts with its files in a temporary folder (a restart
 * recovers the same data), and any number of API processes (main/api.main.ts) and worker
 * processes (main/worker.main.ts, or test/faults/support/fault-worker.main.ts with a fault), each
 * on its own port, logging to a file of the folder. `stop()` ends every one and removes the folder.
 */

/** The simulated chain and bank answer within a second, so operations settle while the fault is still fresh. */
const FAST_SETTINGS = {
  CHAIN_CONFIRMATION_DELAY_MS: '300',
  BANK_SETTLEMENT_DELAY_MS: '300',
  // No travel-rule wait: every withdrawal goes straight to the chain.
  TRAVEL_RULE_THRESHOLD_EUR: '1000000000',
  // Rate limiting is per partner and API process: off, the load is the point.
  RATE_LIMIT_PER_SECOND: '0',
  // A POST that waits longer answers 503 and the caller retries with the same key.
  OPERATION_RESPONSE_TIMEOUT_MS: '15000',
  LOG_LEVEL: 'info',
  WORKER_METRICS_PORT: '0',
  // Two APIs on one machine: their internal /metrics listeners would take the same port.
  API_METRICS_PORT: '0',
  // The production entries refuse to simulate a rail nobody accepted; here every rail is simulated.
  SIMULATED_RAILS: RAILS.join(','),
  // A webhook receiver in a test listens on 127.0.0.1.
  WEBHOOK_ALLOW_LOOPBACK: 'true',
} as const;

const READY_TIMEOUT_MS = 120_000;
const STOP_GRACE_MS = 15_000;

export type ProcessKind = 'postgres' | 'temporal' | 'api' | 'worker';

/** One process of the stack: started, killed (SIGKILL to its group), stopped (SIGTERM) and started again the same way. */
export class StackProcess {
  private child: ChildProcess | undefined;
  private starts = 0;

  constructor(
    readonly name: string,
    readonly kind: ProcessKind,
    private readonly launch: (logFile: string) => Promise<ChildProcess>,
    readonly logFile: string,
  ) {}

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
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
  }

  /** SIGKILL to the whole group (tsx, the script, and whatever it started: Postgres and its backends, the dev server). */
  async kill(): Promise<void> {
    if (this.child) await killProcessGroup(this.child);
    this.child = undefined;
  }

  /** SIGTERM for an orderly stop, SIGKILL to the group after the grace period (and for whatever of it is left). */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child?.pid) return;
    if (child.exitCode === null && child.signalCode === null) {
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
  }

  async restart(): Promise<void> {
    await this.kill();
    await this.start();
  }
}

export interface FaultStackOptions {
  apis: number;
  workers: number;
}

export class FaultStack {
  readonly postgres: StackProcess;
  readonly temporal: StackProcess;
  readonly apis: StackProcess[] = [];
  readonly apiUrls: string[] = [];
  readonly workers: StackProcess[] = [];
  /** Where fault workers leave their markers. */
  readonly markerDir: string;
  readonly bundlePath: string;
  /** payments_app, as the APIs and workers connect (production's roles: `npm run migrate`'s step in start()). */
  readonly databaseUrl: string;
  readonly temporalAddress: string;
  readonly taskQueue = 'partner-payments-faults';
  readonly payloadKeys = newPayloadKeyEntry('faults');
  private workerCount = 0;

  private constructor(
    readonly dir: string,
    readonly postgresPort: number,
    readonly temporalPort: number,
  ) {
    this.markerDir = path.join(dir, 'fault-markers');
    this.bundlePath = path.join(dir, 'workflow-bundle.js');
    this.temporalAddress = `127.0.0.1:${temporalPort}`;
    this.databaseUrl = embeddedDatabaseUrls(postgresPort, LOOPBACK).appUrl;
    fs.mkdirSync(this.markerDir, { recursive: true });
    fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
    this.postgres = new StackProcess(
      'postgres',
      'postgres',
      (log) => this.launchInfrastructure('postgres', postgresPort, log),
      this.log('postgres'),
    );
    this.temporal = new StackProcess(
      'temporal',
      'temporal',
      (log) => this.launchInfrastructure('temporal', temporalPort, log),
      this.log('temporal'),
    );
  }

  /** Postgres (migrated) and Temporal, then the API and worker processes; the workflow bundle for fault workers alongside. */
  static async start(options: FaultStackOptions): Promise<FaultStack> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'partner-payments-faults-'));
    // The embedded Postgres runs as the 'postgres' user when we are root: it must reach the folder.
    fs.chmodSync(dir, 0o755);
    const stack = new FaultStack(dir, await freePort(), await freePort());
    try {
      await Promise.all([stack.postgres.start(), stack.temporal.start()]);
      await prepareDatabase(embeddedDatabaseUrls(stack.postgresPort, LOOPBACK));
      const bundle = stack.buildBundle();
      for (let index = 0; index < options.apis; index += 1) await stack.addApi();
      await Promise.all(Array.from({ length: options.workers }, () => stack.addWorker()));
      await bundle;
    } catch (error) {
      await stack.stop();
      throw error;
    }
    return stack;
  }

  /** The environment every API and worker process gets. */
  env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    return {
      ...process.env,
      ...FAST_SETTINGS,
      DATABASE_URL: this.databaseUrl,
      TEMPORAL_ADDRESS: this.temporalAddress,
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: this.taskQueue,
      PAYLOAD_ENCRYPTION_KEYS: this.payloadKeys,
      DATA_DIR: this.dir,
      FAULT_WORKFLOW_BUNDLE: this.bundlePath,
      FAULT_MARKER_DIR: this.markerDir,
      ...extra,
    };
  }

  /** Another API process (main/api.main.ts) on a port of its own, kept across restarts; resolves once it answers. */
  async addApi(): Promise<StackProcess> {
    const index = this.apis.length;
    const port = await freePort();
    const api = new StackProcess(
      `api-${index + 1}`,
      'api',
      async (logFile) => {
        const child = this.spawnLogged('main/api.main.ts', [], logFile, { PORT: String(port) });
        await waitForHttp(`http://127.0.0.1:${port}/health/live`, child, logFile);
        return child;
      },
      this.log(`api-${index + 1}`),
    );
    this.apis.push(api);
    this.apiUrls.push(`http://127.0.0.1:${port}`);
    await api.start();
    return api;
  }

  /**
   * Another worker process, resolving once it polls (its /health/ready answers): the production
   * entry (main/worker.main.ts), or with `faultKillAt` the fault worker
   * (test/faults/support/fault-worker.main.ts), which SIGKILLs itself at that activity boundary once
   * (it may do so before it answers: `done` says it did).
   */
  async addWorker(options: { faultKillAt?: string; done?: () => boolean } = {}): Promise<StackProcess> {
    this.workerCount += 1;
    const name = options.faultKillAt
      ? `fault-worker-${this.workerCount}-${options.faultKillAt.replace(':', '-')}`
      : `worker-${this.workerCount}`;
    const script = options.faultKillAt ? 'test/faults/support/fault-worker.main.ts' : 'main/worker.main.ts';
    const worker = new StackProcess(
      name,
      'worker',
      async (logFile) => {
        const port = await freePort();
        const child = this.spawnLogged(script, [], logFile, {
          WORKER_HTTP_PORT: String(port),
          ...(options.faultKillAt ? { FAULT_KILL_AT: options.faultKillAt } : {}),
        });
        await waitForHttp(`http://127.0.0.1:${port}/health/ready`, child, logFile, options.done);
        return child;
      },
      this.log(name),
    );
    this.workers.push(worker);
    await worker.start();
    return worker;
  }

  /** Stops the worker processes that run (an orderly stop: they finish their tasks) and forgets them. */
  async stopWorkers(): Promise<void> {
    await Promise.all(this.workers.splice(0).map((worker) => worker.stop()));
  }

  /** Every process, API and worker first, then Temporal and Postgres; then the folder. */
  async stop(): Promise<void> {
    await Promise.allSettled([...this.apis, ...this.workers].map((child) => child.stop()));
    await Promise.allSettled([this.temporal.stop(), this.postgres.stop()]);
    // Whatever a failed step left (recorded by spawnTsx).
    killRecordedProcesses(this.dir);
    if (process.env.FAULTS_KEEP_DIR) process.stderr.write(`fault campaign folder kept: ${this.dir}\n`);
    else fs.rmSync(this.dir, { recursive: true, force: true });
  }

  private log(name: string): string {
    return path.join(this.dir, 'logs', `${name}.log`);
  }

  private spawnLogged(script: string, args: string[], logFile: string, extraEnv: Record<string, string>): ChildProcess {
    const fd = fs.openSync(logFile, 'a');
    try {
      return spawnTsx(this.dir, script, args, { env: this.env(extraEnv), stdio: ['ignore', fd, fd] });
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Postgres or Temporal through infrastructure.main.ts, resolved when it prints READY; the log gets everything else. */
  private async launchInfrastructure(kind: 'postgres' | 'temporal', port: number, logFile: string): Promise<ChildProcess> {
    const fd = fs.openSync(logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawnTsx(this.dir, 'test/faults/support/infrastructure.main.ts', [kind, this.dir, String(port)], {
        env: { ...process.env, LOG_LEVEL: 'info' },
        stdio: ['pipe', 'pipe', fd],
      });
    } finally {
      fs.closeSync(fd);
    }
    // The addresses are known already (the ports are ours): READY only says it serves.
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${kind} did not start within ${READY_TIMEOUT_MS} ms; see ${logFile}`)),
        READY_TIMEOUT_MS,
      );
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${kind} exited (${code ?? signal}) before it was ready; see ${logFile}`));
      });
      readline.createInterface({ input: child.stdout! }).on('line', (line) => {
        if (line.startsWith('READY ')) {
          clearTimeout(timer);
          resolve();
        } else fs.appendFileSync(logFile, `${line}\n`);
      });
    });
    return child;
  }

  private async buildBundle(): Promise<void> {
    const child = this.spawnLogged('test/faults/support/fault-worker.main.ts', ['--bundle-only'], this.log('bundle'), {});
    const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
    if (code !== 0 || !fs.existsSync(this.bundlePath)) throw new Error(`the workflow bundle was not built; see ${this.log('bundle')}`);
  }
}

/** Polls the URL until it answers 200 (or `done` says the process did its part); fails if the child exits first or time runs out. */
async function waitForHttp(url: string, child: ChildProcess, logFile: string, done?: () => boolean): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (done?.()) return;
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`process exited (${child.exitCode ?? child.signalCode}) before ${url} answered; see ${logFile}`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await killProcessGroup(child);
  throw new Error(`${url} did not answer within ${READY_TIMEOUT_MS} ms; see ${logFile}`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
