import type pg from 'pg';
import { Decimal } from '../../../core/money';
import {
  simulatedBankNotificationsAfter,
  simulatedBankPayment,
  submitSimulatedBankPayment,
} from '../../../db/queries/simulated-bank.queries';
import { UnknownBankReferenceError } from './bank-adapter';
import type { BankAdapter, BankNotifications, BankPaymentState, SepaPayment } from './bank-adapter';

export interface SimulatedBankOptions {
  /** The bank's whole state is the simulated_bank_payment table, shared by every worker. */
  pool: pg.Pool;
  /** How long after submission a payment stays PENDING. */
  settlementDelayMs: number;
  /** Creditor IBANs the simulated bank rejects, to exercise the failure path. */
  rejectCreditorIbans: readonly string[];
}

const REFERENCE_PREFIX = 'SIMBANK-';
/** A bounded batch per call, as a bank's API pages its notifications. */
const NOTIFICATIONS_PER_FETCH = 50;
/** The simulated bank's cursor: the sequence number of the last notification delivered. */
const CURSOR_PATTERN = /^[0-9]{1,18}$/;
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

function normalizeIban(iban: string): string {
  return iban.replace(/\s+/g, '').toUpperCase();
}

/**
 * A simulated bank for local runs and tests (nothing leaves this machine), its state rows in Postgres shared by every worker.
 * It decides at submission and stores the answer (REJECTED if the creditor is listed, else SETTLED), given once the payment
 * is `settlementDelayMs` old by the database's clock. Notifications: what `npm run ops -- bank receive` recorded, in order.
 */
export class SimulatedBankAdapter implements BankAdapter {
  private readonly pool: pg.Pool;
  private readonly settlementDelayMs: number;
  private readonly rejectCreditorIbans: ReadonlySet<string>;

  constructor(options: SimulatedBankOptions) {
    if (!Number.isFinite(options.settlementDelayMs) || options.settlementDelayMs < 0) {
      throw new Error('settlementDelayMs must be a non-negative number');
    }
    this.pool = options.pool;
    this.settlementDelayMs = options.settlementDelayMs;
    this.rejectCreditorIbans = new Set(options.rejectCreditorIbans.map(normalizeIban));
  }

  async submit(payment: SepaPayment, pain001Xml: string): Promise<{ bankReference: string }> {
    if (!SAFE_ID.test(payment.transferId)) throw new Error('transferId is not a usable bank reference');
    const creditorIban = normalizeIban(payment.creditor.iban);
    const rejected = this.rejectCreditorIbans.has(creditorIban);
    const stored = await submitSimulatedBankPayment(this.pool, {
      transferId: payment.transferId,
      messageId: payment.messageId,
      amount: payment.amount,
      creditorIban,
      pain001: pain001Xml,
      settlementDelayMs: this.settlementDelayMs,
      outcome: rejected ? 'REJECTED' : 'SETTLED',
      rejectionReason: rejected ? 'creditor account rejected by the bank (simulated)' : null,
    });
    // A retry rebuilds pain.001 from the stored transfer: other money or creditor under the same id is another payment.
    if (!new Decimal(stored.amount).eq(payment.amount) || stored.creditor_iban !== creditorIban) {
      throw new Error(`transfer ${payment.transferId} was already submitted to the bank with other details`);
    }
    return { bankReference: REFERENCE_PREFIX + payment.transferId };
  }

  async fetchNotifications(since: string | null): Promise<BankNotifications> {
    const after = since ?? '0';
    if (!CURSOR_PATTERN.test(after)) throw new Error(`not a cursor of the simulated bank: ${after.slice(0, 40)}`);
    const rows = await simulatedBankNotificationsAfter(this.pool, after, NOTIFICATIONS_PER_FETCH);
    return { documents: rows.map((row) => row.camt054), cursor: rows.at(-1)?.sequence ?? since };
  }

  async paymentState(bankReference: string): Promise<BankPaymentState> {
    if (!bankReference.startsWith(REFERENCE_PREFIX)) throw new UnknownBankReferenceError(bankReference);
    const transferId = bankReference.slice(REFERENCE_PREFIX.length);
    if (!SAFE_ID.test(transferId)) throw new UnknownBankReferenceError(bankReference);
    const payment = await simulatedBankPayment(this.pool, transferId);
    if (payment === undefined) throw new UnknownBankReferenceError(bankReference);
    if (!payment.due) return { state: 'PENDING' };
    if (payment.outcome === 'REJECTED')
      return { state: 'REJECTED', reason: payment.rejection_reason ?? 'rejected by the bank (simulated)' };
    return { state: 'SETTLED' };
  }
}
