import type { EntityManager } from '@mikro-orm/postgresql';
import type { SepaReturnsResult } from '../contracts';
import { Decimal } from '../core/money';
import { SEPA_NAME_MAX_LENGTH, SEPA_REMITTANCE_MAX_LENGTH, toSepaText } from '../core/payment-limits';
import { Account } from '../db/entities/account.entity';
import { IncomingSepaCredit } from '../db/entities/incoming-sepa-credit.entity';
import { Partner } from '../db/entities/partner.entity';
import {
  completeReturn,
  lockIncomingCredit,
  recordReturnSubmitted,
  reopenAfterRejectedReturn,
} from '../db/services/incoming-sepa-credit.service';
import type { SepaPayment } from './adapters/bank/bank-adapter';
import { buildPain001 } from './adapters/bank/pain001';
import type { ActivityDependencies } from './dependencies';

/** Returns moved per run, oldest request first; more wait for the next run. */
const RETURNS_PER_RUN = 100;

/**
 * The transfer sending a credit back to its debtor, built from the stored credit alone: its id is the return's, which the bank
 * is idempotent on, so the debtor is paid once. It leaves the account the bank credited, named for its partner if it has one.
 */
export function returnPaymentOf(credit: IncomingSepaCredit, accountHolderName: string | null): SepaPayment {
  const returnId = credit.returnId;
  if (!returnId || !credit.returnRequestedAt) throw new Error(`incoming credit ${credit.entryRef} has no return under way`);
  const compactId = returnId.replace(/-/g, '');
  return {
    transferId: returnId,
    messageId: `RTN${compactId}`.slice(0, 35),
    endToEndId: compactId,
    amount: new Decimal(credit.amount).toFixed(2),
    currency: 'EUR',
    debtor: {
      name: Array.from(accountHolderName ?? 'NOTPROVIDED')
        .slice(0, SEPA_NAME_MAX_LENGTH)
        .join(''),
      iban: credit.accountIban,
    },
    // The debtor's name came from their bank: held to the SEPA set pain.001 requires of a creditor.
    creditor: { name: toSepaText(credit.debtorName, SEPA_NAME_MAX_LENGTH), iban: credit.debtorIban },
    remittanceInformation: toSepaText(`Return of SEPA credit ${credit.entryRef}`, SEPA_REMITTANCE_MAX_LENGTH),
    requestedExecutionDate: credit.returnRequestedAt.toISOString().slice(0, 10),
    createdAt: credit.returnRequestedAt.toISOString(),
  };
}

/** What one run did to a return: submitted it (or not), and what the bank answered, if it has. */
interface Step {
  submitted: boolean;
  answer: 'SETTLED' | 'REJECTED' | 'PENDING' | 'GONE';
}

export function createSepaReturnActivities(deps: ActivityDependencies) {
  const inTransaction = <T>(work: (em: EntityManager) => Promise<T>) => deps.orm.em.fork().transactional(work);

  /** The credit, still RETURNING under this return id, locked; undefined when an earlier run moved it on. */
  async function stillReturning(em: EntityManager, id: string, returnId: string): Promise<IncomingSepaCredit | undefined> {
    const credit = await lockIncomingCredit(em, { id });
    return credit?.status === 'RETURNING' && credit.returnId === returnId ? credit : undefined;
  }

  async function accountHolderName(em: EntityManager, iban: string): Promise<string | null> {
    const account = await em.findOne(Account, { kind: 'PARTNER', iban });
    if (!account?.partnerId) return null;
    return (await em.findOne(Partner, { id: account.partnerId }))?.name ?? null;
  }

  /** One return, one step on: submit it (once the bank has it, the reference is kept), then ask the bank for its answer. */
  async function advance(credit: IncomingSepaCredit): Promise<Step> {
    const returnId = credit.returnId!;
    let bankReference: string | null = credit.returnBankReference ?? null;
    const submitted = bankReference === null;
    if (bankReference === null) {
      const payment = returnPaymentOf(credit, await accountHolderName(deps.orm.em.fork(), credit.accountIban));
      const reference = (await deps.bank.submit(payment, buildPain001(payment))).bankReference;
      bankReference = reference;
      const recorded = await inTransaction(async (em) => {
        const current = await stillReturning(em, credit.id, returnId);
        if (current) await recordReturnSubmitted(em, current, reference);
        return current !== undefined;
      });
      if (!recorded) return { submitted, answer: 'GONE' };
    }
    const answer = await deps.bank.paymentState(bankReference);
    if (answer.state === 'PENDING') return { submitted, answer: 'PENDING' };
    const outcome = await inTransaction(async (em): Promise<Step['answer']> => {
      const current = await stillReturning(em, credit.id, returnId);
      if (!current) return 'GONE';
      if (answer.state === 'SETTLED') {
        await completeReturn(em, current, deps.clock.now());
        return 'SETTLED';
      }
      await reopenAfterRejectedReturn(em, current, answer.reason);
      return 'REJECTED';
    });
    return { submitted, answer: outcome };
  }

  return {
    /**
     * Moves every return operators asked for (`ops bank return`) one step on, idempotently: the bank takes the return's id once,
     * and settling or reopening happens under the row lock only while still RETURNING under that id. Failures wait for next run.
     */
    async advanceSepaReturns(): Promise<SepaReturnsResult> {
      const result: SepaReturnsResult = { returnsSubmitted: 0, returnsSettled: 0, returnsRejected: 0, returnsFailed: 0 };
      const open = await deps.orm.em
        .fork()
        .find(IncomingSepaCredit, { status: 'RETURNING' }, { orderBy: { returnRequestedAt: 'asc', id: 'asc' }, limit: RETURNS_PER_RUN });
      for (const credit of open) {
        const fields = { entryRef: credit.entryRef, returnId: credit.returnId };
        try {
          const step = await advance(credit);
          if (step.submitted) result.returnsSubmitted += 1;
          if (step.answer === 'SETTLED') {
            result.returnsSettled += 1;
            deps.log.info(`incoming SEPA credit ${credit.entryRef} returned to its debtor (return ${credit.returnId})`, fields);
          }
          if (step.answer === 'REJECTED') {
            result.returnsRejected += 1;
            deps.log.warn(`the bank rejected the return of incoming SEPA credit ${credit.entryRef}: it is UNMATCHED again`, fields);
          }
        } catch (error) {
          result.returnsFailed += 1;
          deps.log.warn(
            `return of incoming SEPA credit ${credit.entryRef} not moved on this run: ${error instanceof Error ? error.message : String(error)}`,
            fields,
          );
        }
      }
      return result;
    },
  };
}
