import { createHash } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { IncomingSepaIngestResult } from '../contracts';
import { recordBankDocumentExceptions } from '../db/queries/bank-document-exception.queries';
import { advanceNotificationCursor, readNotificationCursor } from '../db/queries/bank-notification-cursor.queries';
import { recordIncomingSepaCredit } from '../db/services/incoming-sepa-credit.service';
import { Camt054Refused, parseCamt054 } from './adapters/bank/camt054-parser';
import type { ActivityDependencies } from './dependencies';

/** The cursor's row in bank_notification_cursor: one bank connection. */
export const NOTIFICATION_SOURCE = 'bank';
/** Fetches per run (each a bounded batch of documents): a long backlog is read over several runs. */
const MAX_FETCHES_PER_RUN = 20;

/** Tells Temporal this attempt is alive; outside an activity (a direct call in a test) there is nobody to tell. */
function heartbeat(): void {
  try {
    Context.current().heartbeat();
  } catch {
    // Not in an activity.
  }
}

/**
 * Records every credit in the bank's notifications after the cursor under `source`, and only then moves it (compare and set).
 * After a crash the same documents are read again, and recorded credits are found by entry reference (DUPLICATE).
 */
export async function ingestBankNotificationsFrom(deps: ActivityDependencies, source: string): Promise<IncomingSepaIngestResult> {
  /**
   * One document: each credit recorded in a transaction of its own. A document that cannot be read, and each entry that is
   * not a credit we take, is kept (bank_document_exception, `ops bank exceptions`) and logged, never a reason to stop.
   */
  async function ingestDocument(xml: string, place: string, result: IncomingSepaIngestResult): Promise<void> {
    result.documents += 1;
    const documentSha256 = createHash('sha256')
      .update(typeof xml === 'string' ? xml : String(xml))
      .digest('hex');
    let parsed;
    try {
      parsed = parseCamt054(xml);
    } catch (error) {
      const reason = error instanceof Camt054Refused ? error.message : `not readable: ${String(error)}`;
      result.refusedDocuments += 1;
      await recordBankDocumentExceptions(deps.pool, [
        { kind: 'DOCUMENT_REFUSED', source, documentSha256, messageId: null, reason, document: String(xml) },
      ]);
      deps.log.error(`camt.054 notification ${place} refused, kept (ops bank exceptions): ${reason}`, {
        notification: place,
        documentSha256,
      });
      return;
    }
    await recordBankDocumentExceptions(
      deps.pool,
      parsed.skipped.map((skipped, index) => ({
        kind: 'ENTRY_SKIPPED' as const,
        source,
        documentSha256,
        messageId: parsed.messageId,
        reference: skipped.reference,
        position: index + 1,
        reason: skipped.reason,
      })),
    );
    for (const skipped of parsed.skipped) {
      result.skippedEntries += 1;
      const fields = { entryRef: skipped.reference, messageId: parsed.messageId };
      deps.log.warn(
        `camt.054 entry ${skipped.reference} (message ${parsed.messageId}) skipped, kept (ops bank exceptions): ${skipped.reason}`,
        fields,
      );
    }
    for (const credit of parsed.credits) {
      const outcome = await deps.orm.em
        .fork()
        .transactional((em) => recordIncomingSepaCredit(em, { ...credit, messageId: parsed.messageId }, deps.clock.now()));
      const fields = { entryRef: credit.entryRef, messageId: parsed.messageId };
      switch (outcome.kind) {
        case 'CREDITED':
          result.credited += 1;
          deps.log.info(`incoming SEPA credit ${credit.entryRef} credited to partner ${outcome.partnerId}`, {
            ...fields,
            partnerId: outcome.partnerId,
          });
          break;
        case 'UNMATCHED':
          result.unmatched += 1;
          deps.log.warn(`incoming SEPA credit ${credit.entryRef} held in suspense (${outcome.reason}): ops bank unmatched`, fields);
          break;
        case 'DUPLICATE':
          result.duplicates += 1;
          break;
        case 'CONFLICT':
          result.conflicts += 1;
          deps.log.error(
            `incoming SEPA credit ${credit.entryRef} notified again with another ${outcome.differs.join(', ')}: kept as first recorded, nothing credited`,
            fields,
          );
          break;
      }
      heartbeat();
    }
  }

  const result: IncomingSepaIngestResult = {
    documents: 0,
    refusedDocuments: 0,
    credited: 0,
    unmatched: 0,
    duplicates: 0,
    conflicts: 0,
    skippedEntries: 0,
  };
  let cursor = await readNotificationCursor(deps.pool, source);
  for (let fetch = 0; fetch < MAX_FETCHES_PER_RUN; fetch += 1) {
    const batch = await deps.bank.fetchNotifications(cursor);
    if (batch.documents.length === 0) break;
    for (const [index, xml] of batch.documents.entries()) {
      await ingestDocument(xml, `${index + 1} after cursor ${cursor ?? '(start)'}`, result);
      heartbeat();
    }
    if (!(await advanceNotificationCursor(deps.pool, source, cursor, batch.cursor))) {
      deps.log.warn('another ingest moved the bank notification cursor first; this run stops here');
      break;
    }
    cursor = batch.cursor;
  }
  return result;
}

export function createIncomingSepaActivities(deps: ActivityDependencies) {
  return {
    /** The incoming-sepa workflow's first step: ingestBankNotificationsFrom the bank's one cursor. */
    ingestBankNotifications: (): Promise<IncomingSepaIngestResult> => ingestBankNotificationsFrom(deps, NOTIFICATION_SOURCE),
  };
}
