import type pg from 'pg';

/**
 * Where the ingest reads the bank's notifications from next (table bank_notification_cursor, one
 * row per source). The position is the bank adapter's own opaque text; null (or no row) means
 * from the first notification.
 */
export async function readNotificationCursor(pool: pg.Pool, source: string): Promise<string | null> {
  const result = await pool.query<{ position: string | null }>('select position from bank_notification_cursor where source = $1', [source]);
  return result.rows[0]?.position ?? null;
}

/**
 * Moves the cursor from `from` to `to`, only if it is still at `from` (compare and set): two
 * ingests that overlap (an attempt that outlived its timeout, and its retry) cannot move it back.
 * False when another run moved it first; what this run recorded stays recorded either way.
 */
export async function advanceNotificationCursor(pool: pg.Pool, source: string, from: string | null, to: string | null): Promise<boolean> {
  const result = await pool.query(
    `insert into bank_notification_cursor (source, position, updated_at) values ($1, $3, clock_timestamp())
     on conflict (source) do update set position = excluded.position, updated_at = excluded.updated_at
      where bank_notification_cursor.position is not distinct from $2
     returning source`,
    [source, from, to],
  );
  return (result.rowCount ?? 0) === 1;
}
