import { randomUUID } from 'node:crypto';
import { link, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { UnknownBankReferenceError } from './bank-adapter';
import type { BankAdapter, BankPaymentState, SepaPayment } from './bank-adapter';

export interface SimulatedBankOptions {
  /** Where submitted pain.001 files land; the files are the bank's whole state. */
  outboxDir: string;
  /** How long after submission a payment stays PENDING. */
  settlementDelayMs: number;
  /** Creditor IBANs the simulated bank rejects, to exercise the failure path. */
  rejectCreditorIbans: readonly string[];
  now?: () => Date;
}

const REFERENCE_PREFIX = 'SIMBANK-';
// Transfer ids become file names: allow nothing that could leave the outbox directory.
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
const CREDITOR_IBAN = /<CdtrAcct>\s*<Id>\s*<IBAN>([^<]+)<\/IBAN>/;

function normalizeIban(iban: string): string {
  return iban.replace(/\s+/g, '').toUpperCase();
}

// Duck-typed, not instanceof Error: errors from node:fs may come from another realm (jest's VM).
function hasErrorCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

/**
 * A simulated bank for local runs and tests: NOT a bank connection, nothing leaves this machine.
 * Submissions are files in an outbox directory, so payment state survives a process restart;
 * a payment settles once the file is `settlementDelayMs` old, unless its creditor is rejected.
 */
export class SimulatedBankAdapter implements BankAdapter {
  private readonly outboxDir: string;
  private readonly settlementDelayMs: number;
  private readonly rejectCreditorIbans: ReadonlySet<string>;
  private readonly now: () => Date;

  constructor(options: SimulatedBankOptions) {
    if (!Number.isFinite(options.settlementDelayMs) || options.settlementDelayMs < 0) {
      throw new Error('settlementDelayMs must be a non-negative number');
    }
    this.outboxDir = options.outboxDir;
    this.settlementDelayMs = options.settlementDelayMs;
    this.rejectCreditorIbans = new Set(options.rejectCreditorIbans.map(normalizeIban));
    this.now = options.now ?? (() => new Date());
  }

  async submit(payment: SepaPayment, pain001Xml: string): Promise<{ bankReference: string }> {
    const file = this.fileFor(payment.transferId);
    await mkdir(this.outboxDir, { recursive: true });
    // Write aside, then hard-link into place: link() fails if the file exists, so a repeated
    // submit never rewrites it (its mtime is the submission time), and a crash mid-write never
    // leaves a truncated file under the final name.
    const temporary = `${file}.${randomUUID()}.tmp`;
    try {
      await writeFile(temporary, pain001Xml, { encoding: 'utf8', flag: 'wx' });
      try {
        await link(temporary, file);
      } catch (error) {
        if (!hasErrorCode(error, 'EEXIST')) throw error;
      }
    } finally {
      await rm(temporary, { force: true });
    }
    return { bankReference: REFERENCE_PREFIX + payment.transferId };
  }

  async paymentState(bankReference: string): Promise<BankPaymentState> {
    if (!bankReference.startsWith(REFERENCE_PREFIX)) throw new UnknownBankReferenceError(bankReference);
    const transferId = bankReference.slice(REFERENCE_PREFIX.length);
    if (!SAFE_ID.test(transferId)) throw new UnknownBankReferenceError(bankReference);
    const file = this.fileFor(transferId);

    let submittedAtMs: number;
    let xml: string;
    try {
      // Whole milliseconds, the resolution of Date: a sub-millisecond mtime must not keep a
      // payment PENDING for one extra poll at the exact settlement instant.
      submittedAtMs = Math.floor((await stat(file)).mtimeMs);
      xml = await readFile(file, 'utf8');
    } catch (error) {
      if (hasErrorCode(error, 'ENOENT')) throw new UnknownBankReferenceError(bankReference);
      throw error;
    }

    if (this.now().getTime() - submittedAtMs < this.settlementDelayMs) return { state: 'PENDING' };
    const creditorIban = CREDITOR_IBAN.exec(xml)?.[1];
    if (creditorIban === undefined) throw new Error(`stored payment for ${bankReference} has no creditor IBAN`);
    if (this.rejectCreditorIbans.has(normalizeIban(creditorIban))) {
      return { state: 'REJECTED', reason: 'creditor account rejected by the bank (simulated)' };
    }
    return { state: 'SETTLED' };
  }

  private fileFor(transferId: string): string {
    if (!SAFE_ID.test(transferId)) throw new Error('transferId is not usable as a file name');
    return path.join(this.outboxDir, `${transferId}.xml`);
  }
}
