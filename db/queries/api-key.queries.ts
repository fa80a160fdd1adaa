import type pg from 'pg';

export async function findPartnerIdByKeyHash(pool: pg.Pool, keyHash: string): Promise<string | undefined> {
  const result = await pool.query<{ partner_id: string }>(`select partner_id from api_key where key_hash = $1 and revoked_at is null`, [
    keyHash,
  ]);
  return result.rows[0]?.partner_id;
}
