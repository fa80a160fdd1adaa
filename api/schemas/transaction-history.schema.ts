import { z } from 'zod';
import type { HistoryPosition } from '../../db/queries/history.queries';

/** Built once per current year: building a zod schema costs more than a whole history request. */
let paramsSchemaOfYear: { year: number; schema: ReturnType<typeof paramsSchema> } | undefined;

/** Path parameters arrive as text; both must be plain integers (no "3.0", no "+3"). */
export function transactionHistoryParamsSchema(currentYear: number) {
  if (paramsSchemaOfYear?.year !== currentYear) paramsSchemaOfYear = { year: currentYear, schema: paramsSchema(currentYear) };
  return paramsSchemaOfYear.schema;
}

function paramsSchema(currentYear: number) {
  const integerText = /^\d{1,4}$/;
  return z.object({
    month: z
      .string()
      .regex(integerText, 'month must be an integer from 1 to 12')
      .transform(Number)
      .refine((month) => month >= 1, 'month must be at least 1')
      .refine((month) => month <= 12, 'month must be at most 12')
      .meta({
        description: 'The month, 1 to 12 (UTC), written as a plain integer.',
        override: { type: 'integer', minimum: 1, maximum: 12, pattern: undefined, examples: [1] },
      }),
    year: z
      .string()
      .regex(integerText, `year must be ${currentYear} or ${currentYear - 1}`)
      .transform(Number)
      .refine((year) => year === currentYear || year === currentYear - 1, `year must be ${currentYear} or ${currentYear - 1}`)
      .meta({
        description: 'The current or the previous year (UTC). History goes back twelve months before the current one.',
        override: { type: 'integer', minimum: currentYear - 1, maximum: currentYear, pattern: undefined, examples: [currentYear] },
      }),
  });
}

/** At most this many entries in one page. */
export const MAX_HISTORY_PAGE_SIZE = 1000;

/** The text of a cursor encodes 84 characters; anything longer is not one of ours. */
const MAX_CURSOR_LENGTH = 128;

const LIMIT_RULE = `limit must be an integer from 1 to ${MAX_HISTORY_PAGE_SIZE}`;
const CURSOR_RULE = 'cursor must be one that a Link header of this endpoint gave';

/** Optional paging; no other parameter is accepted, so a misspelt one is an error, not a silently different answer. */
export const transactionHistoryQuerySchema = z.strictObject(
  {
    limit: z
      .string({ error: LIMIT_RULE })
      .regex(/^\d{1,4}$/, LIMIT_RULE)
      .transform(Number)
      .refine((limit) => limit >= 1 && limit <= MAX_HISTORY_PAGE_SIZE, LIMIT_RULE)
      .optional()
      .meta({
        description:
          'Entries per page. With it the answer is one page, and a `Link` header with rel="next" while more entries follow; ' +
          'without it, the whole month in one array.',
        override: { type: 'integer', minimum: 1, maximum: MAX_HISTORY_PAGE_SIZE, pattern: undefined, examples: [100] },
      }),
    cursor: z
      .string({ error: CURSOR_RULE })
      .max(MAX_CURSOR_LENGTH, CURSOR_RULE)
      .transform((text, context): HistoryPosition => {
        const position = decodeHistoryCursor(text);
        if (position) return position;
        context.addIssue({ code: 'custom', message: CURSOR_RULE });
        return z.NEVER;
      })
      .optional()
      .meta({
        description: 'Where the page starts: opaque, copied from the `Link` header of the page before (valid for its month only).',
        override: { examples: ['MjAyNi0xMS0yMVQxNjoxMjoyNy43ODYxMjMgNWIwZTFjOWUtOGQ1NS00YThmLTlhNTEtMWYzYzJmMGY0Yjdl'] },
      }),
  },
  {
    error: (issue) => (issue.code === 'unrecognized_keys' ? `only limit and cursor are accepted, not ${issue.keys.join(', ')}` : undefined),
  },
);

/** A position in the history: the UTC timestamp to the microsecond, and the entry's id. */
const POSITION = /^((?!0000)\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.(\d{6}) ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** Opaque to partners: base64url of the last entry's exact created_at and id. */
export function encodeHistoryCursor(position: HistoryPosition): string {
  return Buffer.from(`${position.createdAtUtc} ${position.id}`, 'utf8').toString('base64url');
}

export function decodeHistoryCursor(cursor: string): HistoryPosition | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const match = POSITION.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) return undefined;
  const [, seconds = '', microseconds = '', id = ''] = match;
  // A real instant (no 30 February): Postgres would answer an impossible one with an error.
  const instant = new Date(`${seconds}Z`);
  if (Number.isNaN(instant.getTime()) || instant.toISOString().slice(0, 19) !== seconds) return undefined;
  return { createdAtUtc: `${seconds}.${microseconds}`, id };
}
