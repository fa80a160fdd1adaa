import type pg from 'pg';

/** Where the ingest reads the bank's notifications from next: the adapter's opaque text, null from the first. */
export async function readNotificationCursor(pool: pg.Pool, source: string): Promise<string | null> {
  const result = await pool.query<{ position: string | null }>('select position from bank_notification_cursor where source = $1', [source]);
  return result.rows[0]?.position ?? null;
}

/** Moves the cursor from `from` to `to` if still there, so overlapping ingests cannot move it back; false if another run did. */
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
