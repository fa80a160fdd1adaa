import type { ToxicSpec, ToxicStream } from '../../../dev/toxiproxy-client';
import type { StackProcess } from '../../faults/support/harness';
import type { ChaosStack } from './chaos-stack';
import { sleep } from './client';
import type { History } from './history';
import { describeFault, proxyName } from './schedule';
import type { Direction, FaultKind, FaultSpec, ScheduledFault } from './schedule';

/**
 * Runs a nemesis schedule (schedule.ts) against the chaos stack: each fault at its offset, in
 * parallel with the others, each healed at its end (a killed process started again, a paused one
 * continued, a toxic removed, a partition lifted, mining resumed). What actually happened (when it
 * began, when it was healed, what failed) goes to the history and is returned for the checker:
 * availability and recovery are measured against these times, not the planned ones.
 */

export interface FaultRecord {
  id: number;
  kind: FaultKind;
  description: string;
  resource: string;
  startedAt: number;
  /** When the heal completed (a restart included); undefined if the run ended first. */
  endedAt?: number;
  /** Something that did not go as planned (a restart that failed and was retried, a revert that failed). */
  problems: string[];
}

/** A restart that does not come up is tried again this often before the nemesis gives up on it (the settle starts it again). */
const RESTART_ATTEMPTS = 3;

export class Nemesis {
  readonly records: FaultRecord[] = [];
  private stopped = false;
  private readonly sleeping = new Set<{ resolve(): void }>();

  constructor(
    private readonly stack: ChaosStack,
    private readonly history: History,
  ) {}

  /** Runs the whole schedule from now (offset 0); resolves once every fault has been healed. */
  async run(schedule: readonly ScheduledFault[]): Promise<void> {
    const origin = this.history.now();
    await Promise.all(
      schedule.map(async (fault) => {
        await this.wait(origin + fault.atMs - this.history.now());
        if (!this.stopped) await this.inject(fault);
      }),
    );
  }

  /** Cuts every wait short: faults not started are not, faults under way are healed at once (Ctrl-C). */
  stop(): void {
    this.stopped = true;
    for (const sleeper of this.sleeping) sleeper.resolve();
  }

  private async inject(fault: ScheduledFault): Promise<void> {
    const record: FaultRecord = {
      id: fault.id,
      kind: fault.spec.kind,
      description: describeFault(fault.spec),
      resource: fault.resource,
      startedAt: this.history.now(),
      problems: [],
    };
    this.records.push(record);
    this.history.write('fault-start', {
      id: fault.id,
      kind: fault.spec.kind,
      resource: fault.resource,
      spec: fault.spec,
      description: record.description,
    });
    process.stderr.write(`[${seconds(record.startedAt)}] fault ${fault.id}: ${record.description}\n`);
    try {
      await this.apply(fault.spec, record);
    } catch (error) {
      record.problems.push(error instanceof Error ? error.message : String(error));
    }
    record.endedAt = this.history.now();
    this.history.write('fault-end', { id: fault.id, kind: fault.spec.kind, problems: record.problems });
    process.stderr.write(
      `[${seconds(record.endedAt)}] fault ${fault.id} healed${record.problems.length ? `: ${record.problems.join('; ')}` : ''}\n`,
    );
  }

  private async apply(spec: FaultSpec, record: FaultRecord): Promise<void> {
    const { stack } = this;
    switch (spec.kind) {
      case 'kill': {
        const target = stack.process(spec.target);
        await target.kill();
        await this.wait(spec.downMs);
        await this.startAgain(target, record);
        return;
      }
      case 'pause': {
        const target = stack.process(spec.target);
        target.pause();
        try {
          await this.wait(spec.durationMs);
        } finally {
          target.resume();
        }
        return;
      }
      case 'partition': {
        const proxy = proxyName({ client: spec.worker, upstream: 'postgres' });
        await stack.toxiproxy.setEnabled(proxy, false);
        try {
          await this.wait(spec.durationMs);
        } finally {
          await stack.toxiproxy.setEnabled(proxy, true);
        }
        return;
      }
      case 'reorg': {
        const { from, to } = await stack.chain.reorganise(spec.depth, spec.collectMs, (ms) => this.wait(ms));
        this.history.write('reorg', { id: record.id, removedBlocks: [from.toString(), to.toString()] });
        return;
      }
      case 'mining-stall':
        await stack.chain.stallMining();
        try {
          await this.wait(spec.durationMs);
        } finally {
          await stack.chain.mineNormally();
        }
        return;
      default:
        await this.withToxic(spec.link ? proxyName(spec.link) : '', spec.direction, toxicOf(spec), `fault-${record.id}`, spec.durationMs);
    }
  }

  private async withToxic(proxy: string, direction: Direction, toxic: ToxicSpec, name: string, durationMs: number): Promise<void> {
    const streams: ToxicStream[] = direction === 'both' ? ['upstream', 'downstream'] : [direction];
    const added: ToxicStream[] = [];
    try {
      for (const stream of streams) {
        await this.stack.toxiproxy.addToxic(proxy, `${name}-${stream}`, stream, toxic);
        added.push(stream);
      }
      await this.wait(durationMs);
    } finally {
      for (const stream of added) await this.stack.toxiproxy.removeToxic(proxy, `${name}-${stream}`);
    }
  }

  /** Starts a killed process again; a start that fails (its dependencies faulted too) is retried, then left to the settle. */
  private async startAgain(target: StackProcess, record: FaultRecord): Promise<void> {
    for (let attempt = 1; attempt <= RESTART_ATTEMPTS; attempt += 1) {
      try {
        await target.start();
        return;
      } catch (error) {
        record.problems.push(`start #${attempt} of ${target.name} failed: ${error instanceof Error ? error.message : String(error)}`);
        await target.kill();
        if (this.stopped) return;
        await sleep(2_000);
      }
    }
  }

  /** A sleep that stop() cuts short. */
  private wait(ms: number): Promise<void> {
    if (ms <= 0 || this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const sleeper = {
        resolve: () => {
          clearTimeout(timer);
          this.sleeping.delete(sleeper);
          resolve();
        },
      };
      const timer = setTimeout(sleeper.resolve, ms);
      this.sleeping.add(sleeper);
    });
  }
}

function toxicOf(spec: FaultSpec): ToxicSpec {
  switch (spec.kind) {
    case 'latency':
      return { type: 'latency', attributes: { latency: spec.latencyMs, jitter: spec.jitterMs } };
    case 'bandwidth':
      return { type: 'bandwidth', attributes: { rate: spec.rateKBps } };
    case 'blackhole':
      return { type: 'timeout', attributes: { timeout: spec.closeAfterMs } };
    case 'reset':
      return { type: 'reset_peer', attributes: { timeout: spec.afterMs } };
    default:
      throw new Error(`${spec.kind} is not a toxic`);
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
