export interface ExpiringSetOptions {
  /** How long a member stays after it was added. */
  ttlMs: number;
  /** Past this many members the oldest is dropped, so whoever adds cannot fill memory. */
  maxEntries: number;
}

/** Every member lives equally long, so insertion order is expiry order: expired and excess members go from the front. */
export interface ExpiringSet {
  add(member: string, nowMs: number): void;
  has(member: string, nowMs: number): boolean;
  delete(member: string): void;
  clear(): void;
  readonly size: number;
}

export function createExpiringSet(options: ExpiringSetOptions): ExpiringSet {
  if (!(options.ttlMs > 0) || !(options.maxEntries >= 1)) {
    throw new Error(`an expiring set needs ttlMs > 0 and maxEntries >= 1, got ${JSON.stringify(options)}`);
  }
  /** Member → when it expires. */
  const expiries = new Map<string, number>();

  const dropExpired = (nowMs: number) => {
    for (const [member, expiresMs] of expiries) {
      if (expiresMs > nowMs) return;
      expiries.delete(member);
    }
  };

  return {
    add(member, nowMs) {
      dropExpired(nowMs);
      // Re-added members move to the back: their expiry is the latest.
      expiries.delete(member);
      expiries.set(member, nowMs + options.ttlMs);
      if (expiries.size > options.maxEntries) expiries.delete(expiries.keys().next().value as string);
    },
    has(member, nowMs) {
      const expiresMs = expiries.get(member);
      if (expiresMs === undefined) return false;
      if (expiresMs > nowMs) return true;
      expiries.delete(member);
      return false;
    },
    delete(member) {
      expiries.delete(member);
    },
    clear() {
      expiries.clear();
    },
    get size() {
      return expiries.size;
    },
  };
}
