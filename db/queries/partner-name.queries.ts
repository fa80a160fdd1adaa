import type pg from 'pg';

/** A partner's name (a business name, shown to operators); undefined for an unknown id. */
export async function findPartnerName(pool: pg.Pool, partnerId: string): Promise<string | undefined> {
  const result = await pool.query<{ name: string }>({
    name: 'partner-name-by-id',
    text: `select name from partner where id = $1`,
    values: [partnerId],
  });
  return result.rows[0]?.name;
}
