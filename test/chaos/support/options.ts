import path from 'node:path';
import { parseArgs } from 'node:util';

/**
 * `npm run test:chaos -- [--minutes N] [--seed S] [--rate R] [--out FILE]`:
 * - minutes: the load's length, faults and settle included (default 5; 1 to 600, fractions allowed down to 1);
 * - seed: an unsigned 32-bit number (default: a fresh one, printed first so the run can be replayed);
 * - rate: operations per second the simulated partners send, open loop (default DEFAULT_RATE);
 * - out: the history's JSON-lines file (default chaos-results/chaos-<seed>-<time>.jsonl).
 */

/**
 * About half of what the bench measured as the ceiling of a mixed load on this 2-core machine
 * (docs/benchmarks.md: 22 withdrawals/s to their early answer, 40 exchanges/s, with one API and
 * one worker): the mix the simulated partners send (40% withdrawals, 30% SEPA transfers, 30%
 * exchanges) is bounded near 12 operations/s there, so 6/s. The same cores also carry a second API
 * and worker, Toxiproxy and a real chain node here, so this is nearer the stack's ceiling than
 * half; faults push it over for a while, which is the point (docs/testing.md, "Chaos").
 */
export const DEFAULT_RATE = 6;

export interface ChaosOptions {
  minutes: number;
  seed: number | undefined;
  rate: number;
  out: string | undefined;
}

export class OptionsMistake extends Error {}

export function parseChaosOptions(argv: readonly string[]): ChaosOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { minutes: { type: 'string' }, seed: { type: 'string' }, rate: { type: 'string' }, out: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new OptionsMistake(error instanceof Error ? error.message : String(error));
  }
  const { values } = parsed;
  const minutes = values.minutes === undefined ? 5 : Number(values.minutes);
  if (!/^\d+(\.\d+)?$/.test(values.minutes ?? '5') || !(minutes >= 1 && minutes <= 600)) {
    throw new OptionsMistake(`--minutes must be a number from 1 to 600, not "${values.minutes}"`);
  }
  let seed: number | undefined;
  if (values.seed !== undefined) {
    seed = Number(values.seed);
    if (!/^\d{1,10}$/.test(values.seed) || seed > 0xffff_ffff)
      throw new OptionsMistake(`--seed must be a whole number from 0 to 4294967295, not "${values.seed}"`);
  }
  const rate = values.rate === undefined ? DEFAULT_RATE : Number(values.rate);
  if (!/^\d+(\.\d+)?$/.test(values.rate ?? '1') || !(rate > 0 && rate <= 100)) {
    throw new OptionsMistake(`--rate must be operations per second above 0 and at most 100, not "${values.rate}"`);
  }
  return { minutes, seed, rate, out: values.out === undefined ? undefined : path.resolve(values.out) };
}

/** Where the history goes when --out is not given: a folder of the checkout that git ignores. */
export function defaultHistoryFile(root: string, seed: number, startedAt: Date): string {
  return path.join(root, 'chaos-results', `chaos-${seed}-${startedAt.toISOString().replace(/[:.]/g, '-')}.jsonl`);
}

/** How the run's time splits: faults first, then a quiet settle with the load still on (at least 30 s, a tenth of the run). */
export function windows(minutes: number): { totalMs: number; chaosMs: number; quietMs: number } {
  const totalMs = Math.round(minutes * 60_000);
  const quietMs = Math.max(30_000, Math.round(totalMs / 10));
  return { totalMs, chaosMs: totalMs - quietMs, quietMs };
}
