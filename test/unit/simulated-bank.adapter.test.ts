import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SepaPayment } from '../../activities/adapters/bank/bank-adapter';
import { samplePayment } from '../support/sepa-payment.fixture';
import { buildPain001 } from '../../activities/adapters/bank/pain001';
import { SimulatedBankAdapter } from '../../activities/adapters/bank/simulated-bank.adapter';

const DELAY_MS = 60_000;
const REJECTED_IBAN = 'NL91ABNA0417164300';

function payment(overrides: Partial<SepaPayment> = {}): SepaPayment {
  return samplePayment({ amount: '250.00', ...overrides });
}

describe('SimulatedBankAdapter', () => {
  let outboxDir: string;
  let clock: Date;

  function bank(): SimulatedBankAdapter {
    return new SimulatedBankAdapter({ outboxDir, settlementDelayMs: DELAY_MS, rejectCreditorIbans: [REJECTED_IBAN], now: () => clock });
  }

  function submittedAtMs(transferId: string): number {
    return fs.statSync(path.join(outboxDir, `${transferId}.xml`)).mtimeMs;
  }

  beforeEach(() => {
    // A missing subdirectory also checks that submit creates the outbox.
    outboxDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'simulated-bank-')), 'outbox');
    clock = new Date();
  });

  afterEach(() => {
    fs.rmSync(path.dirname(outboxDir), { recursive: true, force: true });
  });

  it('writes the pain.001 document to <outboxDir>/<transferId>.xml and answers with a SIMBANK reference', async () => {
    const sepa = payment();
    const xml = buildPain001(sepa);
    await expect(bank().submit(sepa, xml)).resolves.toEqual({ bankReference: `SIMBANK-${sepa.transferId}` });
    expect(fs.readFileSync(path.join(outboxDir, `${sepa.transferId}.xml`), 'utf8')).toBe(xml);
    expect(fs.readdirSync(outboxDir)).toEqual([`${sepa.transferId}.xml`]);
  });

  it('keeps the first file and its modification time when the same transfer is submitted again', async () => {
    const sepa = payment();
    const first = buildPain001(sepa);
    await bank().submit(sepa, first);
    const file = path.join(outboxDir, `${sepa.transferId}.xml`);
    const earlier = new Date('2026-01-01T00:00:00.000Z');
    fs.utimesSync(file, earlier, earlier);

    const again = await bank().submit(sepa, buildPain001({ ...sepa, amount: '999.00' }));

    expect(again).toEqual({ bankReference: `SIMBANK-${sepa.transferId}` });
    expect(fs.readFileSync(file, 'utf8')).toBe(first);
    expect(fs.statSync(file).mtimeMs).toBe(earlier.getTime());
    expect(fs.readdirSync(outboxDir)).toEqual([`${sepa.transferId}.xml`]);
  });

  it('reports PENDING until the settlement delay has passed since submission, then SETTLED', async () => {
    const sepa = payment();
    const { bankReference } = await bank().submit(sepa, buildPain001(sepa));
    const submittedAt = submittedAtMs(sepa.transferId);

    clock = new Date(submittedAt + DELAY_MS - 1);
    await expect(bank().paymentState(bankReference)).resolves.toEqual({ state: 'PENDING' });

    clock = new Date(submittedAt + DELAY_MS);
    await expect(bank().paymentState(bankReference)).resolves.toEqual({ state: 'SETTLED' });
  });

  it('keeps its state on disk, so a new adapter instance (a restarted process) answers the same', async () => {
    const sepa = payment();
    const { bankReference } = await bank().submit(sepa, buildPain001(sepa));
    clock = new Date(submittedAtMs(sepa.transferId) + DELAY_MS);

    const restarted = new SimulatedBankAdapter({ outboxDir, settlementDelayMs: DELAY_MS, rejectCreditorIbans: [], now: () => clock });
    await expect(restarted.paymentState(bankReference)).resolves.toEqual({ state: 'SETTLED' });
  });

  it('rejects a payment to a listed creditor IBAN once the delay has passed, and not before', async () => {
    const sepa = payment({ creditor: { name: 'Blocked Creditor', iban: REJECTED_IBAN } });
    const { bankReference } = await bank().submit(sepa, buildPain001(sepa));
    const submittedAt = submittedAtMs(sepa.transferId);

    clock = new Date(submittedAt + DELAY_MS - 1);
    await expect(bank().paymentState(bankReference)).resolves.toEqual({ state: 'PENDING' });

    clock = new Date(submittedAt + DELAY_MS);
    await expect(bank().paymentState(bankReference)).resolves.toEqual({
      state: 'REJECTED',
      reason: 'creditor account rejected by the bank (simulated)',
    });
  });

  it('rejects by the creditor IBAN only, not by the debtor IBAN', async () => {
    const sepa = payment({ debtor: { name: 'Partner Payments GmbH', iban: REJECTED_IBAN } });
    const { bankReference } = await bank().submit(sepa, buildPain001(sepa));
    clock = new Date(submittedAtMs(sepa.transferId) + DELAY_MS);
    await expect(bank().paymentState(bankReference)).resolves.toEqual({ state: 'SETTLED' });
  });

  it.each([
    'SIMBANK-00000000-0000-0000-0000-000000000000',
    'OTHERBANK-5f0c1e2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b',
    'SIMBANK-../outbox/x',
    'SIMBANK-',
  ])('throws "unknown bank reference" for %s', async (reference) => {
    const sepa = payment();
    await bank().submit(sepa, buildPain001(sepa));
    await expect(bank().paymentState(reference)).rejects.toThrow('unknown bank reference');
  });

  it('refuses a transfer id that would leave the outbox directory', async () => {
    const sepa = payment({ transferId: '../escape' });
    await expect(bank().submit(sepa, buildPain001(sepa))).rejects.toThrow(/not usable as a file name/);
  });
});
