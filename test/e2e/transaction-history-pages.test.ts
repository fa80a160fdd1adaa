import type pg from 'pg';
import { createTestPartner } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { testStack } from '../support/stack';
import { useTestApi } from '../support/use-test-api';
import { endPool, openPool } from '../../db/pool';

const ctx = useTestApi();
let pool: pg.Pool;
beforeAll(() => {
  pool = openPool({ connectionString: testStack().databaseUrl, max: 2 });
  ctx.defer(() => endPool(pool));
});

const now = new Date();
const month = now.getUTCMonth() + 1;
const year = now.getUTCFullYear();
const historyPath = `/v1/partner/transaction-history/${month}/${year}`;

/**
 * `count` entries of this month straight into the operation tables, a third of each kind
 * (exchanges, crypto withdrawals, SEPA transfers), spread between the month's start and now;
 * every seventh shares its instant with the one before, so ties are broken by id. They are
 * UNSUCCESSFUL operations that never held funds: the ledger has nothing to say about them.
 */
async function seedEntries(partner: TestPartner, count: number): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query(
      `create temp table seeded on commit drop as
       select i, gen_random_uuid() as id,
              $1::timestamptz + (now() - $1::timestamptz) * ((i - (i % 7 = 0)::int)::float8 / ($2::int + 1)) as at,
              (case i % 2 when 0 then '0.000001' else '12.5' end)::numeric as amount
         from generate_series(1, $2::int) as i`,
      [new Date(Date.UTC(year, month - 1, 1)), count],
    );
    for (const statement of [
      `insert into rate_lock (id, partner_id, rates, fee_percentage, created_at, valid_until)
       select id, $1, '{}', 1, at, at + interval '40 seconds' from seeded where i % 3 = 0`,
      `insert into exchange (id, partner_id, lock_id, currency_from, currency_to, amount_from, amount_to, fee_amount, status, created_at)
       select id, $1, id, 'eur', 'btc', amount + 1, amount, 0, 'UNSUCCESSFUL', at from seeded where i % 3 = 0`,
      `insert into crypto_withdrawal (id, partner_id, currency, network, amount, fee, destination, wallet_type, receiver_type,
                                      beneficiary_name, status, stage, amount_eur, created_at, updated_at)
       select id, $1, 'usdc', 'polygon', amount, 0.1, '0x0000000000000000000000000000000000000001', 'CUSTODIAL', 'NATURAL',
              'Jan Kowalski', 'UNSUCCESSFUL', 'FAILED', 1, at, at from seeded where i % 3 = 1`,
      `insert into sepa_transfer (id, partner_id, currency, amount, receiver_type, company_name, destination_iban, transfer_title,
                                  status, stage, created_at, updated_at)
       select id, $1, 'eur', amount, 'LEGAL', 'Acme GmbH', 'DE89370400440532013000', 'seed', 'UNSUCCESSFUL', 'FAILED', at, at
         from seeded where i % 3 = 2`,
    ]) {
      await client.query(statement, [partner.partnerId]);
    }
    await client.query('commit');
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    client.release();
  }
}

interface Entry {
  id: string;
  createdAt: string;
  type: string;
}

const NEXT_LINK = /^<([^>]+)>; rel="next"$/;

describe('transaction history in pages', () => {
  it('limit and cursor walk the month: every entry exactly once, newest first, the last page without a Link', async () => {
    // Two deposits through the ledger and 48 operations of the other kinds: every kind of entry.
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '10', btc: '0.5' } });
    await seedEntries(partner, 48);
    const whole = await ctx.api.request('GET', historyPath, { apiKey: partner.apiKey });
    expect(whole.status).toBe(200);
    const all = whole.json as Entry[];
    expect(all).toHaveLength(50);
    expect(new Set(all.map((entry) => entry.type))).toEqual(
      new Set(['sepaDeposit', 'cryptoDeposit', 'exchange', 'cryptoWithdrawal', 'sepaTransfer']),
    );

    const walked: Entry[] = [];
    const pageSizes: number[] = [];
    let path: string | undefined = `${historyPath}?limit=10`;
    while (path !== undefined) {
      const page = await ctx.api.request('GET', path, { apiKey: partner.apiKey });
      expect(page.status).toBe(200);
      walked.push(...(page.json as Entry[]));
      pageSizes.push(page.json.length);
      const link = page.headers.get('link');
      if (link !== null) expect(link).toMatch(new RegExp(`^<${historyPath}\\?limit=10&cursor=[A-Za-z0-9_-]+>; rel="next"$`));
      path = link === null ? undefined : NEXT_LINK.exec(link)?.[1];
    }
    // 50 entries in pages of 10: five full pages, and the fifth has no Link (nothing follows it).
    expect(pageSizes).toEqual([10, 10, 10, 10, 10]);
    expect(walked.map((entry) => entry.id)).toEqual(all.map((entry) => entry.id));
    expect(new Set(walked.map((entry) => entry.id)).size).toBe(50);
    const instants = walked.map((entry) => Date.parse(entry.createdAt));
    expect(instants).toEqual([...instants].sort((a, b) => b - a));
  });

  it('a cursor without limit returns the rest of the month', async () => {
    const partner = await createTestPartner(ctx.orm);
    await seedEntries(partner, 25);
    const first = await ctx.api.request('GET', `${historyPath}?limit=7`, { apiKey: partner.apiKey });
    const next = NEXT_LINK.exec(first.headers.get('link') ?? '')?.[1];
    expect(next).toBeDefined();
    const cursor = new URL(next!, 'http://localhost').searchParams.get('cursor')!;
    const rest = await ctx.api.request('GET', `${historyPath}?cursor=${cursor}`, { apiKey: partner.apiKey });
    expect(rest.status).toBe(200);
    expect(rest.headers.get('link')).toBeNull();
    const whole = await ctx.api.request('GET', historyPath, { apiKey: partner.apiKey });
    expect([...first.json, ...rest.json].map((entry: Entry) => entry.id)).toEqual(whole.json.map((entry: Entry) => entry.id));
  });

  it('without parameters the whole month comes back, past 10,000 entries', async () => {
    const partner = await createTestPartner(ctx.orm);
    await seedEntries(partner, 12_345);
    const response = await ctx.api.request('GET', historyPath, { apiKey: partner.apiKey });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const entries = response.json as Entry[];
    expect(entries).toHaveLength(12_345);
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(12_345);
    const instants = entries.map((entry) => Date.parse(entry.createdAt));
    expect(instants).toEqual([...instants].sort((a, b) => b - a));
  });

  it("pages of several partners asked for together each hold that partner's own entries", async () => {
    const partners = [await createTestPartner(ctx.orm), await createTestPartner(ctx.orm), await createTestPartner(ctx.orm)];
    await seedEntries(partners[0]!, 5);
    await seedEntries(partners[1]!, 12);
    const alone = await Promise.all(partners.map((partner) => ctx.api.request('GET', historyPath, { apiKey: partner.apiKey })));
    expect(alone.map((response) => response.json.length)).toEqual([5, 12, 0]);
    const together = await Promise.all(
      [0, 1, 2, 0, 1, 2, 1].map((index) => ctx.api.request('GET', `${historyPath}?limit=4`, { apiKey: partners[index]!.apiKey })),
    );
    expect(together.map((response) => response.json.map((entry: Entry) => entry.id))).toEqual(
      [0, 1, 2, 0, 1, 2, 1].map((index) => alone[index]!.json.slice(0, 4).map((entry: Entry) => entry.id)),
    );
  });

  const position = (text: string) => Buffer.from(text).toString('base64url');
  it.each([
    ['limit=0', 'limit: limit must be an integer from 1 to 1000'],
    ['limit=1001', 'limit: limit must be an integer from 1 to 1000'],
    ['limit=ten', 'limit: limit must be an integer from 1 to 1000'],
    ['limit=1.5', 'limit: limit must be an integer from 1 to 1000'],
    ['limit=1&limit=2', 'limit: limit must be an integer from 1 to 1000'],
    ['limit=5&cursor=not%20a%20cursor', 'cursor: cursor must be one that a Link header of this endpoint gave'],
    ['cursor=' + position('yesterday 42'), 'cursor: cursor must be one that a Link header of this endpoint gave'],
    [
      'cursor=' + position('2026-02-30T10:00:00.000000 0b6f3a3c-5b0e-4a57-9d7e-4f4a1e0b9c11'),
      'cursor: cursor must be one that a Link header of this endpoint gave',
    ],
    ['cursor=' + 'A'.repeat(129), 'cursor: cursor must be one that a Link header of this endpoint gave'],
    // A well-formed position of another month: never a cursor this month's pages gave.
    [
      'limit=5&cursor=' + position('2020-01-15T10:00:00.000000 0b6f3a3c-5b0e-4a57-9d7e-4f4a1e0b9c11'),
      `cursor must be one that a Link header of this endpoint gave for ${year}-${String(month).padStart(2, '0')}`,
    ],
    ['page=2', 'only limit and cursor are accepted, not page'],
  ])('?%s is 400 P403 naming the rule', async (query, rule) => {
    const partner = await createTestPartner(ctx.orm);
    const response = await ctx.api.request('GET', `${historyPath}?${query}`, { apiKey: partner.apiKey });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ errorCode: 'P403', errorMessage: rule });
  });
});
