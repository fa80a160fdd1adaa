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

/** A partner's lock as stored (its rates and fee never change), whether used or not; undefined when it is not this partner's. */
export async function findRateLockTerms(
  pool: pg.Pool,
  lock: { id: string; partnerId: string },
): Promise<{ rates: Record<string, string>; feePercentage: string } | undefined> {
  const { rows } = await pool.query<{ rates: Record<string, string>; fee_percentage: string }>({
    name: 'find_rate_lock_terms',
    text: 'select rates, fee_percentage::text as fee_percentage from rate_lock where id = $1 and partner_id = $2',
    values: [lock.id, lock.partnerId],
  });
  const row = rows[0];
  return row && { rates: row.rates, feePercentage: row.fee_percentage };
}
