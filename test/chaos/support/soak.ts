import fs from 'node:fs';
import type { StackProcess } from '../../faults/support/harness';
import { metricValue } from '../../support/prometheus-text';
import type { AttemptRecord } from './client';
import { percentile } from './checker/availability';
import type { History } from './history';
import { markdownTable } from './report';

/**
 * Soak sampling: every few seconds, each process's memory (the proportional set size of its whole
 * process group, so Postgres's backends count once for what they share) and, for the APIs and
 * workers, the event-loop delay their /metrics report (p99 since the previous scrape). At the end,
 * two verdicts: memory grew less than 10% over the second half of the load (per process, over the
 * part of it one incarnation lived: a process the nemesis restarted starts afresh), and the p99
 * latency in the calm stretches the schedule leaves without faults stayed steady (the median of
 * the second half's within 1.5× of the first's, 100 ms of slack for very short latencies).
 */

const SAMPLE_EVERY_MS = 5_000;
const MAX_GROWTH = 0.1;

interface Sample {
  t: number;
  process: string;
  start: number;
  memoryBytes: number;
  eventLoopP99Ms?: number;
}

export class SoakSampler {
  readonly samples: Sample[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly processes: () => readonly StackProcess[],
    private readonly history: History,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.sample(), SAMPLE_EVERY_MS);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async sample(): Promise<void> {
    for (const each of this.processes()) {
      const group = each.groupId;
      if (group === undefined || each.paused) continue;
      const memoryBytes = groupMemoryBytes(group);
      let eventLoopP99Ms: number | undefined;
      if (each.metricsUrl) {
        try {
          const page = await (await fetch(each.metricsUrl, { signal: AbortSignal.timeout(2_000) })).text();
          const seconds = metricValue(page, 'nodejs_eventloop_lag_p99_seconds');
          if (seconds !== undefined) eventLoopP99Ms = seconds * 1000;
        } catch {
          // a faulted or restarting process: no sample this time
        }
      }
      const sample: Sample = {
        t: this.history.now(),
        process: each.name,
        start: each.startCount,
        memoryBytes,
        ...(eventLoopP99Ms === undefined ? {} : { eventLoopP99Ms }),
      };
      this.samples.push(sample);
      this.history.write('sample', { ...sample });
    }
  }

  /** The verdicts over the load window [from, to]; each line says what was judged and whether it held. */
  verdicts(
    window: { from: number; to: number },
    attempts: readonly AttemptRecord[],
    probes: ReadonlyArray<{ from: number; to: number }>,
  ): { table: string; problems: string[] } {
    const middle = (window.from + window.to) / 2;
    const problems: string[] = [];
    const rows: string[][] = [];
    for (const name of [...new Set(this.samples.map((sample) => sample.process))]) {
      const mine = this.samples.filter((sample) => sample.process === name && sample.t >= middle && sample.t <= window.to);
      const last = mine.at(-1);
      const incarnation = mine.filter((sample) => sample.start === last?.start);
      const loop = (from: number, to: number) =>
        percentile(
          this.samples
            .filter((s) => s.process === name && s.t >= from && s.t < to && s.eventLoopP99Ms !== undefined)
            .map((s) => s.eventLoopP99Ms!),
          0.5,
        );
      const loops = `${ms(loop(window.from, middle))} / ${ms(loop(middle, window.to))}`;
      if (incarnation.length < 6 || incarnation[0]!.t > middle + (window.to - middle) / 4) {
        rows.push([name, '–', '–', 'not judged: restarted late in the second half', loops]);
        continue;
      }
      const first = median(incarnation.slice(0, 3).map((sample) => sample.memoryBytes));
      const end = median(incarnation.slice(-3).map((sample) => sample.memoryBytes));
      const growth = end / first - 1;
      const held = growth < MAX_GROWTH;
      if (!held) problems.push(`${name}: memory grew ${(growth * 100).toFixed(1)}% over the second half (${mb(first)} → ${mb(end)})`);
      rows.push([name, mb(first), mb(end), `${(growth * 100).toFixed(1)}% ${held ? '(< 10%)' : '(over 10%: not held)'}`, loops]);
    }
    // Latency where it can be compared: the second half of each calm stretch (its first half still drains what the faults before it left).
    const p99Of = (probe: { from: number; to: number }) =>
      percentile(
        attempts
          .filter((attempt) => attempt.outcome === 'answered' && attempt.startedAt >= probe.from && attempt.startedAt < probe.to)
          .map((attempt) => attempt.endedAt - attempt.startedAt),
        0.99,
      );
    const measured = probes.map((probe) => ({ ...probe, p99: p99Of(probe) })).filter((probe) => probe.p99 !== undefined);
    this.history.write('latency-probes', { probes: measured });
    const before = percentile(
      measured.filter((probe) => probe.from < middle).map((probe) => probe.p99!),
      0.5,
    );
    const after = percentile(
      measured.filter((probe) => probe.from >= middle).map((probe) => probe.p99!),
      0.5,
    );
    let latency = `p99 latency in the calm stretches without faults (${measured.map((probe) => ms(probe.p99)).join(', ')}): first half ${ms(before)}, second half ${ms(after)}`;
    if (before !== undefined && after !== undefined) {
      const steady = after <= Math.max(before * 1.5, before + 100);
      latency += steady ? ' (steady)' : ' (NOT steady)';
      if (!steady) problems.push(`the p99 latency of the calm stretches rose from ${ms(before)} to ${ms(after)} between the halves`);
    } else latency += ' (too few calm stretches to judge)';
    const table = markdownTable(
      ['process', 'memory mid-run', 'memory at the end', 'growth, second half', 'event-loop p99 (median), first / second half'],
      rows,
    );
    return { table: `${table}\n\n${latency}`, problems };
  }
}

/** The proportional set size of every process in the group (/proc/<pid>/smaps_rollup), or their RSS where that cannot be read. */
function groupMemoryBytes(group: number): number {
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pgrp is the 5th field, after the command in parentheses (which may hold spaces).
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== group) continue;
      total += kilobytes(`/proc/${entry}/smaps_rollup`, 'Pss') ?? kilobytes(`/proc/${entry}/status`, 'VmRSS') ?? 0;
    } catch {
      // gone meanwhile
    }
  }
  return total * 1024;
}

function kilobytes(file: string, field: string): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(file, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

function median(values: readonly number[]): number {
  return percentile(values, 0.5) ?? 0;
}

function mb(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024)} MB`;
}

function ms(value: number | undefined): string {
  return value === undefined ? '–' : `${Math.round(value)} ms`;
}
