import type pg from 'pg';
import { findPartnerName } from '../queries/partner-name.queries';

/** Names change rarely and only label workflows in the Temporal UI, so a few minutes stale is fine. */
const TIME_TO_LIVE_MS = 5 * 60_000;
/** Beyond this many partners per pool the oldest entry is dropped. */
const MAX_ENTRIES = 10_000;

interface Entry {
  name: string | undefined;
  fetchedAtMs: number;
}

/** One cache per pool, so a process (or a test) with two databases never mixes their partners. */
const caches = new WeakMap<pg.Pool, Map<string, Entry>>();

/** The partner's name for labelling workflows, from memory when looked up in the last few minutes. */
export async function cachedPartnerName(pool: pg.Pool, partnerId: string): Promise<string | undefined> {
  let cache = caches.get(pool);
  if (!cache) caches.set(pool, (cache = new Map<string, Entry>()));
  const nowMs = performance.now();
  const cached = cache.get(partnerId);
  if (cached && nowMs - cached.fetchedAtMs < TIME_TO_LIVE_MS) return cached.name;
  const name = await findPartnerName(pool, partnerId);
  cache.delete(partnerId);
  cache.set(partnerId, { name, fetchedAtMs: nowMs });
  if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value!);
  return name;
}
