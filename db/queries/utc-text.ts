/**
 * A timestamp column as ISO 8601 UTC text (`2026-11-28T16:22:30.123Z`), in SQL: pg and MikroORM's connection parse timestamps
 * differently, so lists for operators read them as text.
 */
export function utcText(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
