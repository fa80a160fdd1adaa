import type pg from 'pg';
import type { ActiveApiKey, ApiKeyScope } from '../../core/api-keys';

interface ActiveKeyRow {
  id: string;
  partner_id: string;
  scope: ApiKeyScope;
  expires_at: Date | null;
}

/** The key a hash belongs to unless revoked, expired ones too: the API decides expiry with its own clock, also when cached. */
export async function findActiveApiKeyByHash(pool: pg.Pool, keyHash: string): Promise<ActiveApiKey | undefined> {
  const result = await pool.query<ActiveKeyRow>({
    name: 'active-api-key-by-hash',
    text: `select id, partner_id, scope, expires_at from api_key where key_hash = $1 and revoked_at is null`,
    values: [keyHash],
  });
  const row = result.rows[0];
  return row && { apiKeyId: row.id, partnerId: row.partner_id, scope: row.scope, expiresAt: row.expires_at };
}

/** How coarse last_used_at is: a key's row is written at most once in this long. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Records a key's use at most once a minute however many API processes ask, never moving it back, and touching no column
 * the api_key_changed trigger announces. True when it wrote.
 */
export async function recordApiKeyUse(pool: pg.Pool, apiKeyId: string, usedAt: Date): Promise<boolean> {
  const result = await pool.query({
    name: 'record-api-key-use',
    text: `update api_key set last_used_at = $2
            where id = $1 and (last_used_at is null or last_used_at < $2::timestamptz - make_interval(secs => $3::double precision / 1000))`,
    values: [apiKeyId, usedAt, LAST_USED_RESOLUTION_MS],
  });
  return result.rowCount === 1;
}
