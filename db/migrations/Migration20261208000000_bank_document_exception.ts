import { Migration } from '@mikro-orm/migrations';

/**
 * What the incoming-SEPA ingest could not take from a bank's notification, kept rather than only logged: a whole document
 * refused (with its text, so its credits can be found and booked by hand), or one entry skipped (a debit, not booked, a
 * credit without a debtor IBAN…). Written once per document and reference (a document read again after a crash adds
 * nothing), never changed or removed; operators list it with `ops bank exceptions`.
 */
export class Migration20261208000000_bank_document_exception extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table bank_document_exception (
  id bigint generated always as identity primary key,
  kind text not null check (kind in ('DOCUMENT_REFUSED', 'ENTRY_SKIPPED')),
  source text not null check (length(source) between 1 and 64),
  -- The document as the bank sent it, by its SHA-256: what a second reading of it is known by.
  document_sha256 text not null check (document_sha256 ~ '^[0-9a-f]{64}$'),
  -- Its GrpHdr/MsgId when it could be read.
  message_id text check (length(message_id) between 1 and 35),
  -- An entry's NtryRef, or its place (MsgId/notification/entry); '' for a whole document.
  reference text not null check (length(reference) <= 200),
  -- 0 for a whole document, else the skipped entry's place among the document's skipped entries (1, 2, …): a reading
  -- of the same document gives the same places.
  position integer not null check (position >= 0),
  reason text not null check (length(reason) between 1 and 2000),
  -- Only for a refused document: its text, at most the parser's bound.
  document text check (length(document) <= 2000000),
  recorded_at timestamptz not null default clock_timestamp(),
  check ((kind = 'DOCUMENT_REFUSED') = (document is not null)),
  check ((kind = 'DOCUMENT_REFUSED') = (reference = '' and position = 0)),
  unique (document_sha256, position)
);
create index bank_document_exception_recorded_idx on bank_document_exception (recorded_at, id);
`);
  }
}
