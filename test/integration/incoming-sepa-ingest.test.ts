import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { BankAdapter } from '../../activities/adapters/bank/bank-adapter';
import { buildCamt054 } from '../../activities/adapters/bank/camt054';
import type { IncomingCredit } from '../../activities/adapters/bank/camt054';
import type { ActivityDependencies } from '../../activities/dependencies';
import { ingestBankNotificationsFrom } from '../../activities/incoming-sepa.activities';
import { systemClock } from '../../core/clock';
import { createLogger } from '../../core/logger';
import type { Logger } from '../../core/logger';
import { readNotificationCursor } from '../../db/queries/bank-notification-cursor.queries';
import { createTestPartner } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { testStack } from '../support/stack';
import { useTestApi } from '../support/use-test-api';
import { endPool, openPool } from '../../db/pool';

/**
 * The ingest at its boundaries, against the run's Postgres, on a scripted bank: a run that dies
 * between two credits of one document (after the first committed, before the cursor moved), then
 * runs again; and two runs at once from the same cursor. Each credit is credited once. Each test
 * has a cursor of its own, so the e2e tests' bank is not disturbed.
 */
const ctx = useTestApi({ api: false });
let pool: pg.Pool;
beforeAll(() => {
  pool = openPool({ connectionString: testStack().databaseUrl, max: 6 });
});
afterAll(async () => {
  await endPool(pool);
});

const DEBTOR = 'FR1420041010050500013M02606';

function creditTo(partner: TestPartner, entryRef: string, amount: string): IncomingCredit {
  return {
    entryRef,
    accountIban: partner.accounts.eur.iban!,
    amount,
    bookingDate: '2026-11-26',
    valueDate: '2026-11-26',
    debtorName: 'Jan Kowalski',
    debtorIban: DEBTOR,
    remittance: null,
  };
}

/** A bank that always has the same one document, reached from the start; anything later is empty. */
function bankWith(credits: IncomingCredit[]): BankAdapter {
  const document = buildCamt054({
    messageId: `MSG-${randomUUID().slice(0, 8)}`,
    createdAt: new Date().toISOString(),
    notifications: [{ id: 'N1', accountIban: credits[0]!.accountIban, entries: credits }],
  });
  return {
    submit: () => Promise.reject(new Error('not used')),
    paymentState: () => Promise.reject(new Error('not used')),
    fetchNotifications: async (since) => (since === null ? { documents: [document], cursor: '1' } : { documents: [], cursor: since }),
  };
}

function dependencies(bank: BankAdapter, log: Logger = createLogger('incoming-sepa-test', 'error')): ActivityDependencies {
  return {
    orm: ctx.orm,
    pool,
    clock: systemClock,
    log,
    bank,
    chain: {} as ActivityDependencies['chain'],
    compliance: { travelRuleThresholdEur: '1000', travelRuleDeadlineMs: 60_000, denyListedAddresses: [] },
  };
}

async function eurOf(partner: TestPartner): Promise<string> {
  const rows = await pool.query<{ posted: string }>('select posted_amount::text as posted from account where id = $1', [
    partner.accounts.eur.id,
  ]);
  return rows.rows[0]!.posted;
}

async function depositsOf(partner: TestPartner): Promise<number> {
  const rows = await pool.query<{ count: string }>(`select count(*)::text as count from deposit where partner_id = $1`, [
    partner.partnerId,
  ]);
  return Number(rows.rows[0]!.count);
}

describe('the incoming-SEPA ingest', () => {
  it('that dies after the first credit of a document committed, before the cursor moved, credits each once when run again', async () => {
    const partner = await createTestPartner(ctx.orm);
    const source = `test-${randomUUID().slice(0, 8)}`;
    const bank = bankWith([
      creditTo(partner, `A-${randomUUID().slice(0, 8)}`, '10.00'),
      creditTo(partner, `B-${randomUUID().slice(0, 8)}`, '2.50'),
    ]);
    // The process "dies" where the first credit is logged: committed, the second not begun, the cursor untouched.
    const dying = createLogger('incoming-sepa-test', 'error');
    dying.info = () => {
      throw new Error('worker killed');
    };
    await expect(ingestBankNotificationsFrom(dependencies(bank, dying), source)).rejects.toThrow('worker killed');
    expect(await eurOf(partner)).toBe('10.000000000000000000');
    expect(await readNotificationCursor(pool, source)).toBeNull();

    const again = await ingestBankNotificationsFrom(dependencies(bank), source);
    expect(again).toMatchObject({ documents: 1, credited: 1, duplicates: 1 });
    expect(await eurOf(partner)).toBe('12.500000000000000000');
    expect(await depositsOf(partner)).toBe(2);
    expect(await readNotificationCursor(pool, source)).toBe('1');
  });

  it('run twice at once from the same cursor credits each entry once, and one of them moves the cursor', async () => {
    const partner = await createTestPartner(ctx.orm);
    const source = `test-${randomUUID().slice(0, 8)}`;
    const credits = Array.from({ length: 5 }, (_, index) => creditTo(partner, `C${index}-${randomUUID().slice(0, 8)}`, '1.00'));
    const bank = bankWith(credits);
    const [first, second] = await Promise.all([
      ingestBankNotificationsFrom(dependencies(bank), source),
      ingestBankNotificationsFrom(dependencies(bank), source),
    ]);
    expect(first.credited + second.credited).toBe(5);
    expect(first.duplicates + second.duplicates).toBe(5);
    expect(await eurOf(partner)).toBe('5.000000000000000000');
    expect(await depositsOf(partner)).toBe(5);
    expect(await readNotificationCursor(pool, source)).toBe('1');
  });

  it('records a second delivery with other money under a recorded reference as a conflict: nothing credited', async () => {
    const partner = await createTestPartner(ctx.orm);
    const source = `test-${randomUUID().slice(0, 8)}`;
    const entryRef = `D-${randomUUID().slice(0, 8)}`;
    await ingestBankNotificationsFrom(dependencies(bankWith([creditTo(partner, entryRef, '4.00')])), `${source}-a`);
    const conflict = await ingestBankNotificationsFrom(dependencies(bankWith([creditTo(partner, entryRef, '400.00')])), `${source}-b`);
    expect(conflict).toMatchObject({ credited: 0, conflicts: 1 });
    expect(await eurOf(partner)).toBe('4.000000000000000000');
  });
});
