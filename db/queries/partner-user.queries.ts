import type pg from 'pg';

export async function findUserIdByExternalId(pool: pg.Pool, partnerId: string, externalUserId: string): Promise<string | undefined> {
  const result = await pool.query<{ id: string }>(`select id from partner_user where partner_id = $1 and external_user_id = $2`, [
    partnerId,
    externalUserId,
  ]);
  return result.rows[0]?.id;
}
