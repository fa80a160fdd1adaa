import { availabilityRows } from '../chaos/support/checker/availability';
import { creditedAmount } from '../chaos/support/checker/money';
import type { OperationLog } from '../chaos/support/load';
import { planOperation } from '../chaos/support/operations';
import { DEFAULT_RATE, OptionsMistake, parseChaosOptions, windows } from '../chaos/support/options';
import { Random } from '../chaos/support/random';
import { FAULT_KINDS, MAX_CONCURRENT, calmWindows, drawSchedule } from '../chaos/support/schedule';
import { quoteExchange } from '../../activities/exchange.activities';

/**
 * The chaos run's pure parts (test/chaos): the seeded randomness and the nemesis schedule a seed
 * replays, the command line, the checker's own exchange arithmetic and its table per fault kind.
 */

describe('the seeded randomness', () => {
  it('replays a stream from its seed and label, and keeps streams of other labels apart', () => {
    const draws = (seed: number, label: string) => {
      const random = Random.stream(seed, label);
      return Array.from({ length: 5 }, () => random.uint32());
    };
    expect(draws(7, 'nemesis')).toEqual(draws(7, 'nemesis'));
    expect(draws(7, 'nemesis')).not.toEqual(draws(8, 'nemesis'));
    expect(draws(7, 'nemesis')).not.toEqual(draws(7, 'op-1'));
  });

  it('draws whole numbers inside their bounds, both ends reached', () => {
    const random = Random.stream(1, 'bounds');
    const seen = new Set(Array.from({ length: 2000 }, () => random.int(1, 3)));
    expect([...seen].sort()).toEqual([1, 2, 3]);
  });
});

describe('the nemesis schedule', () => {
  const fiveMinutes = windows(5).chaosMs;

  it('is the same for the same seed, and another for another', () => {
    expect(drawSchedule(42, fiveMinutes)).toEqual(drawSchedule(42, fiveMinutes));
    expect(drawSchedule(42, fiveMinutes)).not.toEqual(drawSchedule(43, fiveMinutes));
  });

  it.each([1, 7, 42, 2026, 4_294_967_295])('seed %i: every kind once at least in five minutes, each ended inside the window', (seed) => {
    const schedule = drawSchedule(seed, fiveMinutes);
    expect(new Set(schedule.map((fault) => fault.spec.kind))).toEqual(new Set(FAULT_KINDS));
    for (const fault of schedule) {
      expect(fault.atMs).toBeGreaterThan(0);
      expect(fault.plannedEndMs).toBeLessThanOrEqual(fiveMinutes);
    }
  });

  it.each([1, 7, 21, 42, 2026])('seed %i: a four-minute run faults a link of every upstream, bitcoin’s included', (seed) => {
    const upstreams = drawSchedule(seed, windows(4).chaosMs).flatMap((fault) => ('link' in fault.spec ? [fault.spec.link.upstream] : []));
    expect(new Set(upstreams)).toEqual(new Set(['bitcoin', 'ethereum', 'postgres', 'temporal']));
  });

  it('overlaps faults, never two on one resource at once nor more than the bound', () => {
    const schedule = drawSchedule(2026, windows(60).chaosMs);
    let overlapping = 0;
    for (const fault of schedule) {
      const active = schedule.filter((other) => other.atMs <= fault.atMs && other.plannedEndMs > fault.atMs);
      expect(active.length).toBeLessThanOrEqual(MAX_CONCURRENT);
      expect(new Set(active.map((other) => other.resource)).size).toBe(active.length);
      if (active.length > 1) overlapping += 1;
    }
    expect(overlapping).toBeGreaterThan(10);
    // Pauses of 1 to 20 s, reorganisations of 1 to 3 blocks, as the issue asks.
    for (const { spec } of schedule) {
      if (spec.kind === 'pause') expect(spec.durationMs).toBeGreaterThanOrEqual(1_000);
      if (spec.kind === 'pause') expect(spec.durationMs).toBeLessThanOrEqual(20_000);
      if (spec.kind === 'reorg') expect([1, 2, 3]).toContain(spec.depth);
    }
  });

  it('leaves a calm half-minute every 2.5 minutes, where the soak measures latency', () => {
    const windowMs = windows(60).chaosMs;
    const calm = calmWindows(windowMs);
    expect(calm).toHaveLength(21);
    expect(calm[0]).toEqual({ fromMs: 120_000, toMs: 150_000 });
    for (const fault of drawSchedule(7, windowMs)) {
      for (const stretch of calm) expect(fault.atMs >= stretch.toMs || fault.plannedEndMs <= stretch.fromMs).toBe(true);
    }
  });
});

describe('the command line', () => {
  it('defaults to five minutes, a fresh seed and the documented rate', () => {
    expect(parseChaosOptions([])).toEqual({ minutes: 5, seed: undefined, rate: DEFAULT_RATE, out: undefined });
    expect(parseChaosOptions(['--minutes', '60', '--seed', '123'])).toMatchObject({ minutes: 60, seed: 123 });
  });

  it.each([
    [['--minutes', '0']],
    [['--minutes', 'five']],
    [['--seed', '-1']],
    [['--seed', '4294967296']],
    [['--rate', '0']],
    [['--bogus']],
  ])('refuses %j', (argv) => {
    expect(() => parseChaosOptions(argv)).toThrow(OptionsMistake);
  });

  it('ends every run with a quiet settle of at least 30 s', () => {
    expect(windows(5)).toEqual({ totalMs: 300_000, chaosMs: 270_000, quietMs: 30_000 });
    expect(windows(60)).toEqual({ totalMs: 3_600_000, chaosMs: 3_240_000, quietMs: 360_000 });
  });
});

describe("the checker's exchange arithmetic", () => {
  const lock = { id: 'lock', rates: { eur: '1', btc: '85000', eth: '3000', usdc: '0.92' }, feePercentage: '1' };

  it.each([
    ['100', 'eur', 'btc'],
    ['0.123457', 'eth', 'eur'],
    ['333.33', 'usdc', 'eur'],
    ['10', 'eur', 'eth'],
  ] as const)('credits %s %s in %s as DESIGN.md says, to the last digit the service does', (amount, from, to) => {
    const mine = creditedAmount(amount, lock, from, to);
    const service = quoteExchange({
      amount,
      currencyTo: to,
      rateFrom: lock.rates[from],
      rateTo: lock.rates[to],
      feePercentage: lock.feePercentage,
    });
    expect(mine.toFixed()).toBe(service.amountTo);
  });

  it('rounds down to the scale of the currency credited', () => {
    // 100 EUR at 85000 with 1% off: 0.00116470588… BTC, 8 decimals.
    expect(creditedAmount('100', lock, 'eur', 'btc').toFixed()).toBe('0.0011647');
  });
});

describe('the table per fault kind', () => {
  it('counts requests and operations under each kind, "none" outside them, and the recovery after each', () => {
    const operation = (op: number, startedAt: number, endedAt: number): OperationLog => ({
      ...planOperation(op, { index: 0, partnerId: 'p', apiKey: 'k', externalUserIds: ['u'], deposits: {} }, Random.stream(1, `op-${op}`)),
      startedAt,
      endedAt,
      status: 201,
      operationId: `id-${op}`,
      attempts: 1,
    });
    const rows = availabilityRows({
      faults: [{ id: 1, kind: 'pause', description: '', resource: 'api-1', startedAt: 1_000, endedAt: 3_000, problems: [] }],
      attempts: [
        { op: 1, attempt: 1, api: 0, startedAt: 1_500, endedAt: 2_500, outcome: '503', status: 503 },
        { op: 1, attempt: 2, api: 1, startedAt: 3_200, endedAt: 3_400, outcome: 'answered', status: 201 },
        { op: 2, attempt: 1, api: 1, startedAt: 5_000, endedAt: 5_100, outcome: 'answered', status: 201 },
      ],
      operations: [operation(1, 1_500, 3_400), operation(2, 5_000, 5_100)],
      anomalies: [{ kind: 'stuck', op: 1, detail: '' }],
      finalAt: new Map(),
      loadEndedAt: 6_000,
    });
    const pause = rows.find((row) => row.kind === 'pause')!;
    const none = rows.find((row) => row.kind === 'none')!;
    expect(pause).toMatchObject({ injected: 1, operations: 1, attempts: 1, unavailable: 1, recoveryMs: [400] });
    expect(pause.anomalies.stuck).toBe(1);
    expect(none).toMatchObject({ operations: 1, attempts: 2, answered: 2 });
    expect(none.anomalies.stuck).toBe(0);
  });
});
