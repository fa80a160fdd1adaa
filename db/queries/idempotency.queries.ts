import type pg from 'pg';

export interface IdempotencyRow {
  id: string;
  operation: string;
  request_hash: string;
  resource_id: string;
  response_status: number | null;
  response_body: unknown;
}

/** Claims (partner, key) for a request, or returns the record holding it; the unique constraint decides races. */
export async function claimIdempotencyKey(
  pool: pg.Pool,
  claim: { id: string; partnerId: string; key: string; operation: string; requestHash: string; resourceId: string },
): Promise<{ claimed: boolean; record: IdempotencyRow }> {
  // A claim released between our insert and select (see releaseIdempotencyClaim) is tried again.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const found = await claimOnce(pool, claim);
    if (found) return found;
  }
  throw new Error('idempotency record kept vanishing between insert and select');
}

async function claimOnce(
  pool: pg.Pool,
  claim: { id: string; partnerId: string; key: string; operation: string; requestHash: string; resourceId: string },
): Promise<{ claimed: boolean; record: IdempotencyRow } | undefined> {
  const inserted = await pool.query<IdempotencyRow>(
    `insert into idempotency_record (id, partner_id, idempotency_key, operation, request_hash, resource_id)
     values ($1, $2, $3, $4, $5, $6)
     on conflict (partner_id, idempotency_key) do nothing
     returning id, operation, request_hash, resource_id, response_status, response_body`,
    [claim.id, claim.partnerId, claim.key, claim.operation, claim.requestHash, claim.resourceId],
  );
  if (inserted.rows[0]) return { claimed: true, record: inserted.rows[0] };
  const existing = await pool.query<IdempotencyRow>(
    `select id, operation, request_hash, resource_id, response_status, response_body
       from idempotency_record where partner_id = $1 and idempotency_key = $2`,
    [claim.partnerId, claim.key],
  );
  const record = existing.rows[0];
  return record ? { claimed: false, record } : undefined;
}

/** Frees a key whose operation was tombstoned, so a retry with it starts a new operation. */
export async function releaseIdempotencyClaim(pool: pg.Pool, id: string): Promise<void> {
  await pool.query(`delete from idempotency_record where id = $1 and response_status is null`, [id]);
}

/** Stores the final answer; the first stored answer wins, so replays always see the same one. */
export async function completeIdempotencyRecord(pool: pg.Pool, id: string, status: number, body: unknown): Promise<void> {
  await pool.query(
    `update idempotency_record set response_status = $2, response_body = $3::jsonb, completed_at = now()
      where id = $1 and response_status is null`,
    [id, status, JSON.stringify(body)],
  );
}
