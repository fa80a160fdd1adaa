import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { BankAdapter } from '../../activities/adapters/bank/bank-adapter';
import { buildCamt054 } from '../../activities/adapters/bank/camt054';
import { MAX_CAMT054_CHARS } from '../../activities/adapters/bank/camt054-parser';
import type { IncomingCredit } from '../../activities/adapters/bank/camt054';
import type { ActivityDependencies } from '../../activities/dependencies';
import { ingestBankNotificationsFrom } from '../../activities/incoming-sepa.activities';
import { systemClock } from '../../core/clock';
import { createLogger } from '../../core/logger';
import type { Logger } from '../../core/logger';
import { readNotificationCursor } from '../../db/queries/bank-notification-cursor.queries';
import { createTestPartner } from '../support/fixtures';
import { runOpsCli } from '../support/ops-cli';
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

describe('a document the ingest cannot take', () => {
  /** A bank with these documents, in this order, reached from the start. */
  function bankOf(documents: string[]): BankAdapter {
    return {
      submit: () => Promise.reject(new Error('not used')),
      paymentState: () => Promise.reject(new Error('not used')),
      fetchNotifications: async (since) => (since === null ? { documents, cursor: '1' } : { documents: [], cursor: since }),
    };
  }

  function documentWith(credits: IncomingCredit[]): string {
    return buildCamt054({
      messageId: `MSG-${randomUUID().slice(0, 8)}`,
      createdAt: new Date().toISOString(),
      notifications: [{ id: 'N1', accountIban: credits[0]!.accountIban, entries: credits }],
    });
  }

  async function exceptionsOf(source: string) {
    const { rows } = await pool.query<{ kind: string; reference: string; reason: string; document: string | null; position: number }>(
      'select kind, reference, reason, document, position from bank_document_exception where source = $1 order by id',
      [source],
    );
    return rows;
  }

  it("is that document's refusal, kept with its text, and the credits after it are still recorded; skipped entries are kept too, once", async () => {
    const partner = await createTestPartner(ctx.orm);
    const source = `test-${randomUUID().slice(0, 8)}`;
    const valid = documentWith([creditTo(partner, `E-${randomUUID().slice(0, 8)}`, '7.00')]);
    const namespace = /xmlns(:\w+)?="([^"]+)"/.exec(valid)!;
    // A bare "&" and an entity reference in the root's namespace: they once threw outside the document's refusal.
    const bareAmpersand = valid.replace(namespace[0], `xmlns${namespace[1] ?? ''}="${namespace[2]}&x"`);
    const entityReference = valid.replace(namespace[0], `xmlns${namespace[1] ?? ''}="&ns;"`);
    const debit = documentWith([
      creditTo(partner, `F-${randomUUID().slice(0, 8)}`, '3.00'),
      creditTo(partner, `G-${randomUUID().slice(0, 8)}`, '5.00'),
    ]).replace(/CdtDbtInd>CRDT</, 'CdtDbtInd>DBIT<');
    // Over the parser's bound, with a NUL (which Postgres text cannot hold): refused, and still kept, in part.
    const oversized = `\0${valid}${' '.repeat(MAX_CAMT054_CHARS)}`;
    const bank = bankOf([bareAmpersand, entityReference, oversized, debit]);

    const result = await ingestBankNotificationsFrom(dependencies(bank), source);
    expect(result).toMatchObject({ documents: 4, refusedDocuments: 3, credited: 1, skippedEntries: 1 });
    expect(await eurOf(partner)).toBe('5.000000000000000000');
    expect(await readNotificationCursor(pool, source)).toBe('1');
    const kept = await exceptionsOf(source);
    expect(kept.map(({ kind, document, position }) => ({ kind, document, position }))).toEqual([
      { kind: 'DOCUMENT_REFUSED', document: bareAmpersand, position: 0 },
      { kind: 'DOCUMENT_REFUSED', document: entityReference, position: 0 },
      { kind: 'DOCUMENT_REFUSED', document: `\uFFFD${oversized.slice(1, MAX_CAMT054_CHARS)}`, position: 0 },
      { kind: 'ENTRY_SKIPPED', document: null, position: 1 },
    ]);
    expect(kept[2]!.reason).toBe(
      `(its first ${MAX_CAMT054_CHARS} characters kept) the document is ${oversized.length} characters, over ${MAX_CAMT054_CHARS}`,
    );
    expect(kept[3]!.reason).toBe('a debit (DBIT): not an incoming credit');
    expect(kept[0]!.reason).toMatch(/^not readable: /);

    // The same documents read again (as after a crash before the cursor moved; here from a cursor of its own): nothing is
    // kept twice, nothing credited twice.
    expect(await ingestBankNotificationsFrom(dependencies(bank), `${source}-again`)).toMatchObject({ refusedDocuments: 3, duplicates: 1 });
    expect(await exceptionsOf(`${source}-again`)).toEqual([]);
    expect(await exceptionsOf(source)).toHaveLength(4);
    expect(await eurOf(partner)).toBe('5.000000000000000000');

    // What an operator lists: newest first, a refused document's length, its text only when asked for.
    const listed = await runOpsCli(['bank', 'exceptions', '--limit', '1000']);
    expect(listed.code).toBe(0);
    const ours = listed.output.exceptions.filter((row: { source: string }) => row.source === source);
    expect(ours.map((row: Record<string, unknown>) => [row.kind, row.documentChars, row.document])).toEqual([
      ['ENTRY_SKIPPED', null, undefined],
      ['DOCUMENT_REFUSED', MAX_CAMT054_CHARS, undefined],
      ['DOCUMENT_REFUSED', entityReference.length, undefined],
      ['DOCUMENT_REFUSED', bareAmpersand.length, undefined],
    ]);
    const withDocument = await runOpsCli([
      'bank',
      'exceptions',
      '--before',
      String(Number(ours[2].id) + 1),
      '--limit',
      '1',
      '--with-document',
    ]);
    expect(withDocument.output.exceptions).toEqual([expect.objectContaining({ id: ours[2].id, document: entityReference })]);
  });
});
