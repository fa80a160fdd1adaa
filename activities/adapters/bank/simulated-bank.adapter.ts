import type pg from 'pg';
import { insertSimulatedBankPayment, simulatedBankPayment } from '../../../db/queries/simulated-bank.queries';
import { UnknownBankReferenceError } from './bank-adapter';
import type { BankAdapter, BankPaymentState, SepaPayment } from './bank-adapter';

export interface SimulatedBankOptions {
  /** The bank's whole state is the simulated_bank_payment table, shared by every worker. */
  pool: pg.Pool;
  /** How long after submission a payment stays PENDING. */
  settlementDelayMs: number;
  /** Creditor IBANs the simulated bank rejects, to exercise the failure path. */
  rejectCreditorIbans: readonly string[];
}

const REFERENCE_PREFIX = 'SIMBANK-';
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

function normalizeIban(iban: string): string {
  return iban.replace(/\s+/g, '').toUpperCase();
}

/**
 * A simulated bank for local runs and tests: NOT a bank connection, nothing leaves this machine.
 * Submissions are rows in Postgres, so every worker process, on any machine, sees one bank whose
 * state survives restarts; a payment settles once it is `settlementDelayMs` old by the database's
 * clock, unless its creditor is rejected.
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
    await insertSimulatedBankPayment(this.pool, {
      transferId: payment.transferId,
      messageId: payment.messageId,
      amount: payment.amount,
      creditorIban: normalizeIban(payment.creditor.iban),
      pain001: pain001Xml,
    });
    return { bankReference: REFERENCE_PREFIX + payment.transferId };
  }

  async paymentState(bankReference: string): Promise<BankPaymentState> {
    if (!bankReference.startsWith(REFERENCE_PREFIX)) throw new UnknownBankReferenceError(bankReference);
    const transferId = bankReference.slice(REFERENCE_PREFIX.length);
    if (!SAFE_ID.test(transferId)) throw new UnknownBankReferenceError(bankReference);
    const payment = await simulatedBankPayment(this.pool, transferId, this.settlementDelayMs);
    if (payment === undefined) throw new UnknownBankReferenceError(bankReference);
    if (!payment.due) return { state: 'PENDING' };
    if (this.rejectCreditorIbans.has(payment.creditor_iban)) {
      return { state: 'REJECTED', reason: 'creditor account rejected by the bank (simulated)' };
    }
    return { state: 'SETTLED' };
  }
}
