import { proxyActivities, setCurrentDetails } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { IncomingSepaResult } from '../contracts';
import { withSummary } from './activity-proxies';

/** A bank that stays down fails the run; the Schedule's next run starts again from the stored cursor. */
const { ingestBankNotifications, advanceSepaReturns } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
});

/** Run by the `incoming-sepa` Schedule (worker/incoming-sepa-schedule.ts): contracts/incoming-sepa.contract.ts. */
export async function incomingSepaWorkflow(): Promise<IncomingSepaResult> {
  setCurrentDetails('**Reading** the bank’s camt.054 notifications…');
  const ingest = await withSummary(ingestBankNotifications, 'read camt.054 notifications since the cursor; record each credit once')();
  setCurrentDetails('**Moving** returns to debtors on…');
  const returns = await withSummary(advanceSepaReturns, 'submit requested returns; settle those the bank answered')();
  const result = { ...ingest, ...returns };
  setCurrentDetails(
    `Read ${result.documents} notification documents: ${result.credited} credited, ${result.unmatched} held for an operator, ` +
      `${result.duplicates} already recorded, ${result.skippedEntries} entries and ${result.refusedDocuments} documents skipped. ` +
      `Returns: ${result.returnsSubmitted} submitted, ${result.returnsSettled} settled, ${result.returnsRejected} rejected.`,
  );
  return result;
}
