import { Random } from './random';

/**
 * The nemesis schedule, drawn from the seed alone (no clock, no Math.random): the same seed gives
 * the same faults at the same offsets with the same targets and parameters. Faults overlap (up to
 * MAX_CONCURRENT at once), but never two on one resource (a process, a proxy, the chain), and each
 * has an end inside the chaos window; every 2.5 minutes comes a calm half-minute (the soak's
 * probes), and after the window the quiet settle period.
 */

export const FAULT_KINDS = ['kill', 'pause', 'latency', 'bandwidth', 'blackhole', 'reset', 'partition', 'reorg', 'mining-stall'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const PROCESS_NAMES = ['postgres', 'temporal', 'api-1', 'api-2', 'worker-1', 'worker-2'] as const;
export type ProcessName = (typeof PROCESS_NAMES)[number];
export type ClientName = Exclude<ProcessName, 'postgres' | 'temporal'>;
export type Upstream = 'postgres' | 'temporal' | 'ethereum' | 'bitcoin';

/** A connection the run proxies: from an API or worker to Postgres, Temporal or (workers only) a chain's node. */
export interface Link {
  client: ClientName;
  upstream: Upstream;
}

/** Every proxied connection of the chaos stack; the APIs hold no chain settings. */
export const LINKS: readonly Link[] = [
  ...(['api-1', 'api-2'] as const).flatMap((client) => (['postgres', 'temporal'] as const).map((upstream) => ({ client, upstream }))),
  ...(['worker-1', 'worker-2'] as const).flatMap((client) =>
    (['postgres', 'temporal', 'ethereum', 'bitcoin'] as const).map((upstream) => ({ client, upstream })),
  ),
];

export function proxyName(link: Link): string {
  return `${link.client}-${link.upstream}`;
}

export type Direction = 'upstream' | 'downstream' | 'both';

export type FaultSpec =
  /** SIGKILL to the process group, restarted after `downMs`. */
  | { kind: 'kill'; target: ProcessName; downMs: number }
  /** SIGSTOP to the process group, SIGCONT after `durationMs`. */
  | { kind: 'pause'; target: ProcessName; durationMs: number }
  | { kind: 'latency'; link: Link; direction: Direction; latencyMs: number; jitterMs: number; durationMs: number }
  | { kind: 'bandwidth'; link: Link; direction: Direction; rateKBps: number; durationMs: number }
  /** No data passes; connections are closed after `closeAfterMs` (0: held open while it lasts). */
  | { kind: 'blackhole'; link: Link; direction: Direction; closeAfterMs: number; durationMs: number }
  /** Connections are reset `afterMs` after data arrives. */
  | { kind: 'reset'; link: Link; direction: Direction; afterMs: number; durationMs: number }
  /** One worker cut from Postgres only (its proxy disabled: resets, then refused connections). */
  | { kind: 'partition'; worker: 'worker-1' | 'worker-2'; durationMs: number }
  /** Mining paused while transactions gather for `collectMs`, `depth` blocks mined, then reverted to before them. */
  | { kind: 'reorg'; depth: 1 | 2 | 3; collectMs: number }
  /** No block mined for `durationMs`. */
  | { kind: 'mining-stall'; durationMs: number };

export interface ScheduledFault {
  id: number;
  /** Offset from the start of the chaos window. */
  atMs: number;
  /** When it is planned to be over (a restart's time included), for overlap rules. */
  plannedEndMs: number;
  /** What it holds: two faults never hold one resource at once. */
  resource: string;
  spec: FaultSpec;
}

/** How many faults may be planned to run at once. */
export const MAX_CONCURRENT = 3;
/** The mean gap between two drawn faults. */
const MEAN_GAP_MS = 6_000;
/** A restart takes this long to be planned for (tsx, connections, a worker's first poll). */
const RESTART_ALLOWANCE_MS = 15_000;
/** The last fault ends this long before the window does, so a late restart still falls inside it. */
const END_MARGIN_MS = 5_000;
/** Every so often a calm stretch without any fault: the soak's latency probes, comparable across the run. */
const CALM_EVERY_MS = 150_000;
const CALM_MS = 30_000;

/** The calm stretches inside a chaos window of `windowMs` (offsets from its start): no fault runs in them. */
export function calmWindows(windowMs: number): Array<{ fromMs: number; toMs: number }> {
  const calm: Array<{ fromMs: number; toMs: number }> = [];
  for (let toMs = CALM_EVERY_MS; toMs <= windowMs; toMs += CALM_EVERY_MS) calm.push({ fromMs: toMs - CALM_MS, toMs });
  return calm;
}

const WEIGHTS: Readonly<Record<FaultKind, number>> = {
  kill: 15,
  pause: 15,
  latency: 14,
  bandwidth: 8,
  blackhole: 12,
  reset: 10,
  partition: 10,
  reorg: 9,
  'mining-stall': 7,
};

/**
 * The schedule for a chaos window of `windowMs`. It starts with every kind once, in an order the
 * seed shuffles (so even a short run injects each; its link faults on each upstream in turn), then
 * draws kinds by weight; a drawn fault that
 * would run past the window, exceed MAX_CONCURRENT or share a resource with one planned at that
 * moment is dropped (its draws are still consumed, so the rest of the schedule does not shift).
 */
export function drawSchedule(seed: number, windowMs: number): ScheduledFault[] {
  const random = Random.stream(seed, 'nemesis');
  const firstRound = shuffle(random, [...FAULT_KINDS]);
  const faults: ScheduledFault[] = [];
  const calm = calmWindows(windowMs);
  let atMs = random.between(3_000, 8_000);
  let firstRoundLinks = 0;
  for (let draw = 0; atMs < windowMs; draw += 1) {
    const kind = draw < firstRound.length ? firstRound[draw]! : random.weighted(WEIGHTS);
    // Taken once a link fault of the first round fits: one that did not is tried again on the same upstream.
    const upstream =
      draw < firstRound.length && LINK_KINDS.includes(kind)
        ? FIRST_ROUND_UPSTREAMS[firstRoundLinks % FIRST_ROUND_UPSTREAMS.length]
        : undefined;
    const spec = drawSpec(random, kind, upstream);
    const resource = resourceOf(spec);
    const plannedEndMs = atMs + plannedDurationMs(spec);
    const active = faults.filter((fault) => fault.plannedEndMs > atMs);
    const fits =
      plannedEndMs <= windowMs - END_MARGIN_MS &&
      active.length < MAX_CONCURRENT &&
      !active.some((fault) => fault.resource === resource) &&
      !calm.some((stretch) => atMs < stretch.toMs && plannedEndMs > stretch.fromMs);
    if (fits) faults.push({ id: faults.length + 1, atMs: Math.round(atMs), plannedEndMs: Math.round(plannedEndMs), resource, spec });
    if (fits && upstream) firstRoundLinks += 1;
    // In the first round a fault that did not fit is tried again soon, so every kind gets its turn.
    atMs += draw < firstRound.length && !fits ? 1_000 : random.exponential(MEAN_GAP_MS);
    if (draw < firstRound.length && !fits) firstRound.splice(draw + 1, 0, kind);
  }
  return faults;
}

/** The kinds that fault one proxied connection. */
const LINK_KINDS: readonly FaultKind[] = ['latency', 'bandwidth', 'blackhole', 'reset'];
/** The first round's link faults take each upstream in turn, the newest first: even a short run faults every kind of connection. */
const FIRST_ROUND_UPSTREAMS: readonly Upstream[] = ['bitcoin', 'ethereum', 'postgres', 'temporal'];

function drawSpec(random: Random, kind: FaultKind, upstream?: Upstream): FaultSpec {
  const link = () => random.pick(upstream ? LINKS.filter((each) => each.upstream === upstream) : LINKS);
  const direction = () => random.pick<Direction>(['upstream', 'downstream', 'both']);
  const seconds = (min: number, max: number) => random.int(min * 1000, max * 1000);
  switch (kind) {
    case 'kill':
      return { kind, target: random.pick(PROCESS_NAMES), downMs: seconds(1, 8) };
    case 'pause':
      return { kind, target: random.pick(PROCESS_NAMES), durationMs: seconds(1, 20) };
    case 'latency': {
      const latencyMs = random.int(50, 1500);
      return {
        kind,
        link: link(),
        direction: direction(),
        latencyMs,
        jitterMs: random.int(0, Math.floor(latencyMs / 2)),
        durationMs: seconds(5, 30),
      };
    }
    case 'bandwidth':
      return { kind, link: link(), direction: direction(), rateKBps: random.int(1, 32), durationMs: seconds(5, 30) };
    case 'blackhole':
      return {
        kind,
        link: link(),
        direction: direction(),
        closeAfterMs: random.chance(0.5) ? 0 : seconds(1, 10),
        durationMs: seconds(2, 15),
      };
    case 'reset':
      return { kind, link: link(), direction: direction(), afterMs: random.int(0, 1000), durationMs: seconds(2, 15) };
    case 'partition':
      return { kind, worker: random.pick(['worker-1', 'worker-2'] as const), durationMs: seconds(3, 30) };
    case 'reorg':
      return { kind, depth: random.pick([1, 2, 3] as const), collectMs: random.int(500, 4000) };
    case 'mining-stall':
      return { kind, durationMs: seconds(1, 20) };
  }
}

export function resourceOf(spec: FaultSpec): string {
  switch (spec.kind) {
    case 'kill':
    case 'pause':
      return spec.target;
    case 'partition':
      return proxyName({ client: spec.worker, upstream: 'postgres' });
    case 'reorg':
    case 'mining-stall':
      return 'chain';
    default:
      return proxyName(spec.link);
  }
}

export function plannedDurationMs(spec: FaultSpec): number {
  switch (spec.kind) {
    case 'kill':
      return spec.downMs + RESTART_ALLOWANCE_MS;
    case 'reorg':
      // Gathering, the blocks, a moment for the workers to read the receipts, the revert.
      return spec.collectMs + 3_000;
    default:
      return spec.durationMs;
  }
}

/** One line for the history and the console: what, where, how. */
export function describeFault(spec: FaultSpec): string {
  switch (spec.kind) {
    case 'kill':
      return `SIGKILL ${spec.target}, restart after ${spec.downMs} ms`;
    case 'pause':
      return `SIGSTOP ${spec.target} for ${spec.durationMs} ms`;
    case 'latency':
      return `latency ${spec.latencyMs}±${spec.jitterMs} ms on ${proxyName(spec.link)} (${spec.direction}) for ${spec.durationMs} ms`;
    case 'bandwidth':
      return `bandwidth ${spec.rateKBps} KB/s on ${proxyName(spec.link)} (${spec.direction}) for ${spec.durationMs} ms`;
    case 'blackhole':
      return `blackhole on ${proxyName(spec.link)} (${spec.direction}, ${spec.closeAfterMs ? `closed after ${spec.closeAfterMs} ms` : 'held open'}) for ${spec.durationMs} ms`;
    case 'reset':
      return `reset_peer after ${spec.afterMs} ms on ${proxyName(spec.link)} (${spec.direction}) for ${spec.durationMs} ms`;
    case 'partition':
      return `${spec.worker} partitioned from Postgres for ${spec.durationMs} ms`;
    case 'reorg':
      return `ethereum reorganisation of ${spec.depth} block(s) (${spec.collectMs} ms of transactions)`;
    case 'mining-stall':
      return `ethereum mining stalled for ${spec.durationMs} ms`;
  }
}

function shuffle<T>(random: Random, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i -= 1) {
    const j = random.int(0, i);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
