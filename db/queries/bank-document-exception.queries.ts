import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';

/** What the ingest could not take from one document: the document itself, or one of its entries. */
export type BankDocumentException =
  | { kind: 'DOCUMENT_REFUSED'; source: string; documentSha256: string; messageId: null; reason: string; document: string }
  | {
      kind: 'ENTRY_SKIPPED';
      source: string;
      documentSha256: string;
      messageId: string;
      reference: string;
      /** Its place among the document's skipped entries, from 1. */
      position: number;
      reason: string;
    };

/** The column bounds (Migration20261208000000_bank_document_exception). */
const MAX_REASON_CHARS = 2_000;
const MAX_REFERENCE_CHARS = 200;
export const MAX_KEPT_DOCUMENT_CHARS = 2_000_000;

/** Text Postgres stores whatever a bank sent: no NUL (which text cannot hold), at most `max` characters. */
function storable(text: string, max: number): string {
  // Cut by UTF-16 units (never more characters than max), without leaving half a surrogate pair.
  const cut = text.length > max ? text.slice(0, max).replace(/[\uD800-\uDBFF]$/, '') : text;
  return cut.replace(/\0/g, '\uFFFD');
}

/**
 * Kept once per document and place: a document read again after a crash adds nothing. Whatever the document holds, the
 * row is storable (a refusal that could not be kept would stop the ingest like the refusal it records): NULs replaced,
 * texts cut to their columns, a document over the bound kept in part, and said so.
 */
export async function recordBankDocumentExceptions(pool: pg.Pool, exceptions: readonly BankDocumentException[]): Promise<void> {
  if (exceptions.length === 0) return;
  await pool.query({
    name: 'record_bank_document_exceptions',
    text: `insert into bank_document_exception (kind, source, document_sha256, message_id, reference, position, reason, document)
           select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[], $8::text[])
           on conflict (document_sha256, position) do nothing`,
    values: [
      exceptions.map((each) => each.kind),
      exceptions.map((each) => each.source),
      exceptions.map((each) => each.documentSha256),
      exceptions.map((each) => each.messageId),
      exceptions.map((each) => (each.kind === 'ENTRY_SKIPPED' ? storable(each.reference, MAX_REFERENCE_CHARS) : '')),
      exceptions.map((each) => (each.kind === 'ENTRY_SKIPPED' ? each.position : 0)),
      exceptions.map((each) => storable(reasonOf(each), MAX_REASON_CHARS)),
      exceptions.map((each) => (each.kind === 'DOCUMENT_REFUSED' ? storable(each.document, MAX_KEPT_DOCUMENT_CHARS) : null)),
    ],
  });
}

function reasonOf(exception: BankDocumentException): string {
  if (exception.kind !== 'DOCUMENT_REFUSED' || exception.document.length <= MAX_KEPT_DOCUMENT_CHARS) return exception.reason;
  return `(its first ${MAX_KEPT_DOCUMENT_CHARS} characters kept) ${exception.reason}`;
}

export interface BankDocumentExceptionRow {
  id: string;
  kind: string;
  source: string;
  documentSha256: string;
  messageId: string | null;
  reference: string;
  reason: string;
  /** A refused document's length; its text is read with --with-document. */
  documentChars: number | null;
  document?: string;
  recordedAt: string;
}

/** Newest first, `limit` of them, before the row `beforeId` when paging back. */
export async function listBankDocumentExceptions(
  em: EntityManager,
  options: { limit: number; beforeId: string | undefined; withDocument: boolean },
): Promise<BankDocumentExceptionRow[]> {
  const rows = await em.execute<Array<BankDocumentExceptionRow & { document: string | null }>>(
    `select id::text, kind, source, document_sha256 as "documentSha256", message_id as "messageId", reference, reason,
            length(document) as "documentChars", case when ? then document end as document,
            to_char(recorded_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "recordedAt"
       from bank_document_exception
      where ?::bigint is null or id < ?::bigint
      order by id desc limit ?`,
    [options.withDocument, options.beforeId ?? null, options.beforeId ?? null, options.limit],
  );
  return rows.map(({ document, ...row }) => (document === null ? row : { ...row, document }));
}
