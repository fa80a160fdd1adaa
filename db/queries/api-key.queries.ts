import type pg from 'pg';

/** The partner of an active key. A prepared statement: every request whose key is not cached runs it. */
export async function findPartnerIdByKeyHash(pool: pg.Pool, keyHash: string): Promise<string | undefined> {
  const result = await pool.query<{ partner_id: string }>({
    name: 'partner-id-by-key-hash',
    text: `select partner_id from api_key where key_hash = $1 and revoked_at is null`,
    values: [keyHash],
  });
  return result.rows[0]?.partner_id;
}
