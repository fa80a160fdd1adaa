import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { parseCamt054 } from '../../activities/adapters/bank/camt054-parser';
import { buildPain001 } from '../../activities/adapters/bank/pain001';
import { receiveSimulatedCredit } from '../../activities/adapters/bank/simulated-bank-credits';
import { SimulatedBankAdapter } from '../../activities/adapters/bank/simulated-bank.adapter';
import type { SepaPayment } from '../../activities/adapters/bank/bank-adapter';
import { openTestOrm } from '../support/fixtures';
import { samplePayment } from '../support/sepa-payment.fixture';
import { testStack } from '../support/stack';
import { endPool, openPool } from '../../db/pool';

const DELAY_MS = 60_000;
const REJECTED_IBAN = 'NL91ABNA0417164300';

/** The simulated bank on the run's Postgres: its state is a table, so every worker sees one bank. */
describe('SimulatedBankAdapter', () => {
  let pool: pg.Pool;
  beforeAll(() => {
    pool = openPool({ connectionString: testStack().databaseUrl, max: 4 });
  });
  afterAll(() => endPool(pool));

  const bank = (settlementDelayMs = DELAY_MS) =>
    new SimulatedBankAdapter({ pool, settlementDelayMs, rejectCreditorIbans: [REJECTED_IBAN] });
  const payment = (overrides: Partial<SepaPayment> = {}) => samplePayment({ transferId: randomUUID(), amount: '250.00', ...overrides });

  async function stored(transferId: string): Promise<{ pain001: string; amount: string; submitted_at: Date } | undefined> {
    const result = await pool.query('select pain001, amount::text, submitted_at from simulated_bank_payment where transfer_id = $1', [
      transferId,
    ]);
    return result.rows[0];
  }

  /** Moves the submission (and its answer time with it) into the past by the database's clock, as waiting would. */
  async function submittedAgo(transferId: string, ms: number): Promise<void> {
    await pool.query(
      `update simulated_bank_payment
          set submitted_at = clock_timestamp() - make_interval(secs => $2::double precision / 1000),
              answer_at = clock_timestamp() - make_interval(secs => $2::double precision / 1000) + (answer_at - submitted_at)
        where transfer_id = $1`,
      [transferId, ms],
    );
  }

  it('stores the pain.001 document and answers with a SIMBANK reference', async () => {
    const sepa = payment();
    const xml = buildPain001(sepa);
    await expect(bank().submit(sepa, xml)).resolves.toEqual({ bankReference: `SIMBANK-${sepa.transferId}` });
    expect(await stored(sepa.transferId)).toMatchObject({ pain001: xml, amount: '250.00' });
  });

  it('keeps the first submission, its time and its answer when the same transfer is submitted again, from any worker', async () => {
    const sepa = payment({ creditor: { name: 'Blocked Creditor', iban: REJECTED_IBAN } });
    const first = buildPain001(sepa);
    await bank().submit(sepa, first);
    const before = await stored(sepa.transferId);

    // Another worker process, configured otherwise (no reject list, no delay): another adapter
    // and another pool on the same table. The bank answers the same, whoever asks.
    const otherPool = openPool({ connectionString: testStack().databaseUrl, max: 2 });
    try {
      const other = new SimulatedBankAdapter({ pool: otherPool, settlementDelayMs: 0, rejectCreditorIbans: [] });
      const again = await Promise.all([other.submit(sepa, first), bank().submit(sepa, first), other.submit(sepa, first)]);
      expect(again).toEqual(Array(3).fill({ bankReference: `SIMBANK-${sepa.transferId}` }));
      expect(await stored(sepa.transferId)).toEqual(before);
      await expect(other.paymentState(`SIMBANK-${sepa.transferId}`)).resolves.toEqual({ state: 'PENDING' });
      await submittedAgo(sepa.transferId, DELAY_MS);
      const rejected = { state: 'REJECTED', reason: 'creditor account rejected by the bank (simulated)' };
      await expect(other.paymentState(`SIMBANK-${sepa.transferId}`)).resolves.toEqual(rejected);
      await expect(bank().paymentState(`SIMBANK-${sepa.transferId}`)).resolves.toEqual(rejected);
    } finally {
      await endPool(otherPool);
    }
  });

  it('refuses the same transfer id with other money or another creditor, and keeps the first', async () => {
    const sepa = payment();
    const first = buildPain001(sepa);
    await bank().submit(sepa, first);
    const before = await stored(sepa.transferId);
    const otherAmount = { ...sepa, amount: '999.00' };
    await expect(bank().submit(otherAmount, buildPain001(otherAmount))).rejects.toThrow(/already submitted to the bank with other details/);
    const otherCreditor = { ...sepa, creditor: { name: 'Someone Else', iban: 'DE89370400440532013000' } };
    await expect(bank().submit(otherCreditor, buildPain001(otherCreditor))).rejects.toThrow(
      /already submitted to the bank with other details/,
    );
    expect(await stored(sepa.transferId)).toEqual(before);
  });

  it('answers PENDING until the settlement delay has passed by the database clock, then SETTLED', async () => {
    const sepa = payment();
    const { bankReference } = await bank().submit(sepa, buildPain001(sepa));
    await submittedAgo(sepa.transferId, DELAY_MS - 1_000);
    await expect(bank().paymentState(bankReference)).resolves.toEqual({ state: 'PENDING' });
    await submittedAgo(sepa.transferId, DELAY_MS);
    await expect(bank().paymentState(bankReference)).resolves.toEqual({ state: 'SETTLED' });
  });

  it('settles at once with no delay', async () => {
    const sepa = payment();
    const { bankReference } = await bank(0).submit(sepa, buildPain001(sepa));
    await expect(bank(0).paymentState(bankReference)).resolves.toEqual({ state: 'SETTLED' });
  });

  it('rejects a payment to a listed creditor IBAN once due, and not before', async () => {
    const sepa = payment({ creditor: { name: 'Blocked Creditor', iban: REJECTED_IBAN } });
    const { bankReference } = await bank().submit(sepa, buildPain001(sepa));
    await expect(bank().paymentState(bankReference)).resolves.toEqual({ state: 'PENDING' });
    await submittedAgo(sepa.transferId, DELAY_MS);
    await expect(bank().paymentState(bankReference)).resolves.toEqual({
      state: 'REJECTED',
      reason: 'creditor account rejected by the bank (simulated)',
    });
  });

  it('rejects by the creditor IBAN only, not by the debtor IBAN', async () => {
    const sepa = payment({ debtor: { name: 'Partner Payments GmbH', iban: REJECTED_IBAN } });
    const { bankReference } = await bank().submit(sepa, buildPain001(sepa));
    await submittedAgo(sepa.transferId, DELAY_MS);
    await expect(bank().paymentState(bankReference)).resolves.toEqual({ state: 'SETTLED' });
  });

  it.each([
    `SIMBANK-${'0'.repeat(8)}-0000-0000-0000-000000000000`,
    'OTHERBANK-5f0c1e2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b',
    "SIMBANK-x' or '1'='1",
    'SIMBANK-',
  ])('throws "unknown bank reference" for %s', async (reference) => {
    await expect(bank().paymentState(reference)).rejects.toThrow('unknown bank reference');
  });

  it('refuses a transfer id that is not a usable reference', async () => {
    const sepa = payment({ transferId: '../escape' });
    await expect(bank().submit(sepa, buildPain001(sepa))).rejects.toThrow(/not a usable bank reference/);
  });

  // The fault campaign found notifications skipped for good and others delivered twice once the
  // sequence numbers reached two digits: the page was ordered by their text ('10' before '9').
  it('delivers every notification once, in the order it booked them, page after page, whatever the digits of their sequence numbers', async () => {
    const orm = await openTestOrm(2);
    const booked: string[] = [];
    try {
      for (let index = 0; index < 12; index += 1) {
        const entryRef = `ORDER${index}-${randomUUID().slice(0, 8)}`;
        await orm.em.fork().transactional((em) =>
          receiveSimulatedCredit(
            em,
            {
              accountIban: 'DE89370400440532013000',
              amount: '1.00',
              debtorName: 'Jan Kowalski',
              debtorIban: 'FR1420041010050500013M02606',
              remittance: null,
              entryRef,
            },
            new Date(),
          ),
        );
        booked.push(entryRef);
      }
    } finally {
      await orm.close(true);
    }
    const span = await pool.query<{ first: string; last: string; count: string }>(
      'select min(sequence)::text as first, max(sequence)::text as last, count(*)::text as count from simulated_bank_notification',
    );
    const { first, last, count } = span.rows[0]!;
    // What this covers: sequence numbers of one digit and of more.
    expect(first.length).toBeLessThan(last.length);

    // Everything the bank holds, from the start, as the ingest reads it: page by page from the cursor.
    const delivered: string[] = [];
    let documents = 0;
    let cursor: string | null = null;
    for (let page = 0; page < 1_000; page += 1) {
      const batch = await bank().fetchNotifications(cursor);
      if (batch.documents.length === 0) break;
      for (const document of batch.documents) {
        documents += 1;
        // Other test files share the table, hostile documents included: those are counted, not read.
        const credits = tryParse(document);
        delivered.push(...credits.map((credit) => credit.entryRef));
      }
      cursor = batch.cursor;
    }
    expect(cursor).toBe(last);
    expect(documents).toBe(Number(count));
    expect(delivered.filter((entryRef) => booked.includes(entryRef))).toEqual(booked);
  });
});

function tryParse(document: string): ReturnType<typeof parseCamt054>['credits'] {
  try {
    return parseCamt054(document).credits;
  } catch {
    return [];
  }
}
