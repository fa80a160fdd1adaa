import { randomBytes, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../../../core/errors';
import { Decimal } from '../../../core/money';
import { insertSimulatedBankNotification, simulatedBankCreditsOf } from '../../../db/queries/simulated-bank.queries';
import { buildCamt054, checkIncomingCredit } from './camt054';
import type { IncomingCredit } from './camt054';

/** A credit arriving at one of our accounts, as `npm run ops -- bank receive` describes it. */
export interface SimulatedCreditRequest {
  accountIban: string;
  amount: string;
  debtorName: string;
  debtorIban: string;
  remittance: string | null;
  /** The bank's entry reference; a new one when not given. */
  entryRef?: string;
}

export interface ReceivedSimulatedCredit {
  notificationId: string;
  entryRef: string;
  /** Where it sits in the simulated bank's order of delivery. */
  sequence: string;
  /** The same entry delivered again, as a bank re-sending a notification would. */
  redelivery: boolean;
  camt054MessageId: string;
}

function compact(id: string): string {
  return id.replace(/-/g, '').toUpperCase();
}

/**
 * Books a simulated SEPA credit and writes the camt.054 document a bank would send, in the caller's transaction. A booked
 * entry reference is delivered again (a new message, the same NtryRef); with other details it is refused, as a bank would.
 */
export async function receiveSimulatedCredit(
  em: EntityManager,
  request: SimulatedCreditRequest,
  now: Date,
): Promise<ReceivedSimulatedCredit> {
  const entryRef = request.entryRef ?? `SIM${randomBytes(12).toString('hex').toUpperCase()}`;
  const today = now.toISOString().slice(0, 10);
  const credit: IncomingCredit = {
    entryRef,
    accountIban: request.accountIban,
    amount: request.amount,
    bookingDate: today,
    valueDate: today,
    debtorName: request.debtorName,
    debtorIban: request.debtorIban,
    remittance: request.remittance,
  };
  try {
    checkIncomingCredit(credit);
  } catch (error) {
    throw new DomainError('invalid-request', error instanceof Error ? error.message : String(error));
  }
  const earlier = await simulatedBankCreditsOf(em, entryRef);
  const other = earlier.find(
    (booked) =>
      booked.accountIban !== credit.accountIban ||
      !new Decimal(booked.amount).eq(credit.amount) ||
      booked.debtorIban !== credit.debtorIban ||
      booked.debtorName !== credit.debtorName ||
      booked.remittance !== credit.remittance,
  );
  if (other) {
    throw new DomainError(
      'invalid-request',
      `the simulated bank booked entry ${entryRef} with other details (${other.amount} EUR to ${other.accountIban}); a new credit takes a new --entry-ref`,
    );
  }
  const notificationId = randomUUID();
  const camt054MessageId = `SIMBANK${compact(notificationId)}`.slice(0, 35);
  const camt054 = buildCamt054({
    messageId: camt054MessageId,
    createdAt: now.toISOString(),
    notifications: [{ id: `NTF${compact(notificationId)}`.slice(0, 35), accountIban: credit.accountIban, entries: [credit] }],
  });
  const { sequence } = await insertSimulatedBankNotification(em, {
    id: notificationId,
    entryRef,
    accountIban: credit.accountIban,
    amount: new Decimal(credit.amount).toFixed(2),
    debtorName: credit.debtorName,
    debtorIban: credit.debtorIban,
    remittance: credit.remittance,
    camt054,
  });
  return { notificationId, entryRef, sequence, redelivery: earlier.length > 0, camt054MessageId };
}
