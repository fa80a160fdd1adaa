/**
 * The chaos run's only source of randomness: a seeded PRNG (sfc32, Chris Doty-Humphrey's small
 * fast counter, 32-bit state words, passes PractRand), so a seed replays the same nemesis schedule
 * and the same operations. No Math.random anywhere in the run's decisions. Independent streams
 * (the schedule, each operation, the operators) come from one seed and a label, so one stream's
 * draws never shift another's: an operation's amount does not depend on how many faults came first.
 */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number, label = '') {
    // The seed and label mixed into four words (FNV-1a over the text, then splitmix32-style steps).
    let hash = 0x811c9dc5;
    for (const char of `${seed}:${label}`) {
      hash ^= char.charCodeAt(0);
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    const next = () => {
      hash = (hash + 0x9e3779b9) >>> 0;
      let z = hash;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    // Warm-up, as the algorithm's author recommends.
    for (let i = 0; i < 12; i += 1) this.uint32();
  }

  /** A stream of its own for `label`, from the same seed. */
  static stream(seed: number, label: string): Random {
    return new Random(seed, label);
  }

  uint32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.uint32() / 0x1_0000_0000;
  }

  /** A whole number in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** Uniform in [min, max). */
  between(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** One of the keys, each as likely as its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as Array<[K, number]>;
    const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
    let point = this.next() * total;
    for (const [key, weight] of entries) {
      point -= weight;
      if (point < 0) return key;
    }
    return entries.at(-1)![0];
  }

  /** An exponential wait of this mean: the gaps of a Poisson process (open-loop arrivals, fault starts). */
  exponential(mean: number): number {
    return -Math.log(1 - this.next()) * mean;
  }
}

/** A seed for a run that was given none: printed at its start so it can be replayed (the one place the clock chooses). */
export function freshSeed(): number {
  return (Date.now() ^ (process.pid << 16)) >>> 0;
}
