import type pg from 'pg';

export interface RateLockRow {
  id: string;
  rates: Record<string, string>;
  fee_percentage: string;
  created_at: Date;
  valid_until: Date;
}

/** Stores a lock with the partner's current fee, read in the same statement. */
export async function insertRateLock(
  pool: pg.Pool,
  lock: { id: string; partnerId: string; rates: Record<string, string>; createdAt: Date; validUntil: Date },
): Promise<RateLockRow | undefined> {
  const result = await pool.query<RateLockRow>(
    `insert into rate_lock (id, partner_id, rates, fee_percentage, created_at, valid_until)
     select $1, p.id, $3::jsonb, p.fee_percentage, $4, $5 from partner p where p.id = $2
     returning id, rates, fee_percentage::text, created_at, valid_until`,
    [lock.id, lock.partnerId, JSON.stringify(lock.rates), lock.createdAt, lock.validUntil],
  );
  return result.rows[0];
}
