import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createApiKeyCache } from '../../api/auth/api-key-cache';
import type { ApiKeyCache, ApiKeyCacheOptions } from '../../api/auth/api-key-cache';
import { apiKeyDisplayPrefix, generateApiKey, hashApiKey } from '../../core/api-keys';
import { createLogger } from '../../core/logger';
import { findActiveApiKeyByHash, recordApiKeyUse } from '../../db/queries/api-key.queries';
import { createApiKey, revokeApiKey } from '../../db/services/api-key.service';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import { testStack } from '../support/stack';
import { useTestApi } from '../support/use-test-api';
import { endPool, openPool } from '../../db/pool';

const ctx = useTestApi({ api: false });
let pool: pg.Pool;
beforeAll(() => {
  pool = openPool({ connectionString: testStack().databaseUrl, max: 3 });
  ctx.defer(() => endPool(pool));
});

let caches = 0;

/** A started cache whose database lookups are recorded, on a listener connection of its own name. */
async function countingCache(
  options: Partial<ApiKeyCacheOptions<string>> = {},
): Promise<{ cache: ApiKeyCache<string>; lookups: string[]; name: string }> {
  const lookups: string[] = [];
  const name = `api-key-cache-test-${process.pid}-${(caches += 1)}`;
  // Partner ids stand in for the keys' records: what this test checks is whose a hash is.
  const cache = createApiKeyCache<string>({
    databaseUrl: testStack().databaseUrl,
    lookup: async (keyHash) => {
      lookups.push(keyHash);
      return (await findActiveApiKeyByHash(pool, keyHash))?.partnerId;
    },
    log: createLogger('api-key-cache-test', 'error'),
    applicationName: name,
    ...options,
  });
  await cache.start();
  ctx.defer(() => cache.stop());
  return { cache, lookups, name };
}

async function newKey(partnerId: string): Promise<{ apiKeyId: string; keyHash: string }> {
  const issued = await ctx.orm.em.fork().transactional((em) => createApiKey(em, partnerId, new Date()));
  return { apiKeyId: issued.apiKeyId, keyHash: hashApiKey(issued.apiKey) };
}

async function revoke(apiKeyId: string): Promise<void> {
  await ctx.orm.em.fork().transactional((em) => revokeApiKey(em, apiKeyId, new Date()));
}

describe('API key cache', () => {
  it('answers a known key from memory after its first lookup, and an unknown one for a few seconds', async () => {
    const { cache, lookups } = await countingCache({ unknownTtlMs: 500 });
    expect(cache.listening).toBe(true);
    const partner = await createTestPartner(ctx.orm);
    const keyHash = hashApiKey(partner.apiKey);
    expect(await cache.keyFor(keyHash)).toBe(partner.partnerId);
    expect(await cache.keyFor(keyHash)).toBe(partner.partnerId);
    expect(lookups).toEqual([keyHash]);

    const unknown = hashApiKey(`pk_no-such-key-${randomUUID()}`);
    expect(await cache.keyFor(unknown)).toBeUndefined();
    expect(await cache.keyFor(unknown)).toBeUndefined();
    expect(lookups).toEqual([keyHash, unknown]);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await cache.keyFor(unknown)).toBeUndefined();
    expect(lookups).toEqual([keyHash, unknown, unknown]);
  });

  it('a key created after its hash was answered unknown works at once: the insert announces created:<hash>', async () => {
    // A long memory of unknown hashes: only the announcement can make it forget.
    const first = await countingCache({ unknownTtlMs: 60_000 });
    const second = await countingCache({ unknownTtlMs: 60_000 });
    const partner = await createTestPartner(ctx.orm);
    const apiKey = generateApiKey();
    const keyHash = hashApiKey(apiKey);
    for (const { cache } of [first, second]) {
      expect(await cache.keyFor(keyHash)).toBeUndefined();
      expect(await cache.keyFor(keyHash)).toBeUndefined();
    }
    // Inserted as the service inserts keys (db/services/api-key.service.ts), with a hash chosen here.
    await pool.query(
      `insert into api_key (id, partner_id, key_hash, key_prefix, created_at, revoked_at) values ($1, $2, $3, $4, now(), null)`,
      [randomUUID(), partner.partnerId, keyHash, apiKeyDisplayPrefix(apiKey)],
    );
    for (const { cache, lookups } of [first, second]) {
      await eventually(async () => expect(await cache.keyFor(keyHash)).toBe(partner.partnerId));
      expect(lookups.filter((hash) => hash === keyHash).length).toBeGreaterThanOrEqual(2);
    }
  });

  it('a revoked key whose revocation is undone works at once too', async () => {
    const { cache } = await countingCache({ unknownTtlMs: 60_000 });
    const partner = await createTestPartner(ctx.orm);
    const keyHash = hashApiKey(partner.apiKey);
    await revoke(partner.apiKeyId);
    await eventually(async () => expect(await cache.keyFor(keyHash)).toBeUndefined());
    expect(await cache.keyFor(keyHash)).toBeUndefined();
    // Only an operator with SQL can do this; the trigger announces it all the same.
    await pool.query(`update api_key set revoked_at = null where id = $1`, [partner.apiKeyId]);
    await eventually(async () => expect(await cache.keyFor(keyHash)).toBe(partner.partnerId));
  });

  it('a revocation reaches every listening cache, which then refuses the key', async () => {
    const first = await countingCache();
    const second = await countingCache();
    const partner = await createTestPartner(ctx.orm);
    const kept = await newKey(partner.partnerId);
    const keyHash = hashApiKey(partner.apiKey);
    for (const { cache } of [first, second]) {
      expect(await cache.keyFor(keyHash)).toBe(partner.partnerId);
      expect(await cache.keyFor(kept.keyHash)).toBe(partner.partnerId);
    }

    await revoke(partner.apiKeyId);
    for (const { cache } of [first, second]) {
      await eventually(async () => expect(await cache.keyFor(keyHash)).toBeUndefined());
      expect(await cache.keyFor(kept.keyHash)).toBe(partner.partnerId);
    }
    // The other key of the partner stayed in memory: asked of the database once per cache.
    expect(first.lookups.filter((hash) => hash === kept.keyHash)).toHaveLength(1);
    expect(second.lookups.filter((hash) => hash === kept.keyHash)).toHaveLength(1);
  });

  it('while its listener is disconnected every key is looked up, and a revocation made meanwhile is never forgotten', async () => {
    // A slow reconnect keeps the disconnected stretch long enough to act in it.
    const { cache, lookups, name } = await countingCache({ reconnectDelayMs: { first: 3_000, max: 3_000 } });
    const partner = await createTestPartner(ctx.orm);
    const other = await newKey(partner.partnerId);
    const keyHash = hashApiKey(partner.apiKey);
    expect(await cache.keyFor(keyHash)).toBe(partner.partnerId);
    expect(await cache.keyFor(other.keyHash)).toBe(partner.partnerId);

    await pool.query(`select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1`, [name]);
    await eventually(async () => expect(cache.listening).toBe(false));
    await revoke(partner.apiKeyId); // its notification reaches no one
    expect(await cache.keyFor(keyHash)).toBeUndefined();
    lookups.length = 0;
    expect(await cache.keyFor(other.keyHash)).toBe(partner.partnerId);
    expect(await cache.keyFor(other.keyHash)).toBe(partner.partnerId);
    expect(lookups).toEqual([other.keyHash, other.keyHash]);

    await eventually(async () => expect(cache.listening).toBe(true), { timeoutMs: 30_000 });
    expect(await cache.keyFor(keyHash)).toBeUndefined();
    lookups.length = 0;
    expect(await cache.keyFor(other.keyHash)).toBe(partner.partnerId);
    expect(await cache.keyFor(other.keyHash)).toBe(partner.partnerId);
    expect(lookups).toEqual([other.keyHash]);
  });

  it('announces a new expiry, never a recorded use (which would empty every cache of the key each minute)', async () => {
    const listener = new pg.Client({ connectionString: testStack().databaseUrl });
    await listener.connect();
    ctx.defer(() => listener.end());
    const heard: string[] = [];
    listener.on('notification', (message) => heard.push(message.payload ?? ''));
    await listener.query('listen api_key_changed');
    const { cache, lookups } = await countingCache();
    const partner = await createTestPartner(ctx.orm);
    const marker = await newKey(partner.partnerId);
    const keyHash = hashApiKey(partner.apiKey);
    expect(await cache.keyFor(keyHash)).toBe(partner.partnerId);

    // At most one write a minute, whoever asks: the UPDATE's own condition.
    const usedAt = new Date();
    expect(await recordApiKeyUse(pool, partner.apiKeyId, usedAt)).toBe(true);
    expect(await recordApiKeyUse(pool, partner.apiKeyId, new Date(usedAt.getTime() + 59_000))).toBe(false);
    expect(await recordApiKeyUse(pool, partner.apiKeyId, new Date(usedAt.getTime() - 120_000))).toBe(false);
    expect(await recordApiKeyUse(pool, partner.apiKeyId, new Date(usedAt.getTime() + 61_000))).toBe(true);
    // Notifications arrive in commit order: once the marker's is heard, one for the key would have been.
    await pool.query(`update api_key set expires_at = now() + interval '1 day' where id = $1`, [marker.apiKeyId]);
    await eventually(async () => expect(heard).toContain(marker.keyHash));
    expect(heard).not.toContain(keyHash);
    expect(await cache.keyFor(keyHash)).toBe(partner.partnerId);
    expect(lookups.filter((hash) => hash === keyHash)).toHaveLength(1);

    // A rotation's new expiry is announced: the cache asks again.
    await pool.query(`update api_key set expires_at = now() + interval '1 hour' where id = $1`, [partner.apiKeyId]);
    await eventually(async () => expect(heard).toContain(keyHash));
    await eventually(async () => {
      expect(await cache.keyFor(keyHash)).toBe(partner.partnerId);
      expect(lookups.filter((hash) => hash === keyHash)).toHaveLength(2);
    });
  });

  it('keeps at most maxEntries keys, dropping the oldest', async () => {
    const { cache, lookups } = await countingCache({ maxEntries: 2 });
    const partner = await createTestPartner(ctx.orm);
    const [a, b, c] = [await newKey(partner.partnerId), await newKey(partner.partnerId), await newKey(partner.partnerId)];
    for (const key of [a, b, c]) await cache.keyFor(key.keyHash);
    lookups.length = 0;
    await cache.keyFor(c.keyHash);
    await cache.keyFor(b.keyHash);
    expect(lookups).toEqual([]);
    await cache.keyFor(a.keyHash);
    expect(lookups).toEqual([a.keyHash]);
  });

  it('after stop it answers from the database only', async () => {
    const { cache, lookups } = await countingCache();
    const partner = await createTestPartner(ctx.orm);
    const keyHash = hashApiKey(partner.apiKey);
    await cache.keyFor(keyHash);
    await cache.stop();
    expect(cache.listening).toBe(false);
    expect(await cache.keyFor(keyHash)).toBe(partner.partnerId);
    expect(await cache.keyFor(keyHash)).toBe(partner.partnerId);
    expect(lookups).toEqual([keyHash, keyHash, keyHash]);
  });
});
