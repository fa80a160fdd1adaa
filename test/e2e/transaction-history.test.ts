import { createTestPartner } from '../support/fixtures';
import { fixedClock } from '../support/http';
import { useTestApi } from '../support/use-test-api';

const clock = fixedClock(new Date().toISOString());
const now = new Date();
const year = now.getUTCFullYear();
const month = now.getUTCMonth() + 1;

const ctx = useTestApi({ clock });

describe('GET /v1/partner/transaction-history/:month/:year', () => {
  it("lists this month's deposits newest first with type, signed amount, currency and status", async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '100.25' } });
    await createTestPartnerDeposit(partner.partnerId, 'btc', '0.00000001');
    const response = await ctx.api.request('GET', `/v1/partner/transaction-history/${month}/${year}`, { apiKey: partner.apiKey });
    expect(response.status).toBe(200);
    expect(response.json).toHaveLength(2);
    const [newest, oldest] = response.json;
    expect(newest).toMatchObject({ type: 'cryptoDeposit', amount: 1e-8, currency: 'btc', status: 'SUCCESSFUL' });
    expect(oldest).toMatchObject({ type: 'sepaDeposit', amount: 100.25, currency: 'eur', status: 'SUCCESSFUL' });
    expect(Date.parse(newest.createdAt)).toBeGreaterThanOrEqual(Date.parse(oldest.createdAt));
    expect(newest).not.toHaveProperty('amountFrom');
    expect(response.text).toContain('"amount":0.00000001');
  });

  it('returns an empty list for a month without movements', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '1' } });
    const previous = month === 1 ? { month: 12, year: year - 1 } : { month: month - 1, year };
    const response = await ctx.api.request('GET', `/v1/partner/transaction-history/${previous.month}/${previous.year}`, {
      apiKey: partner.apiKey,
    });
    expect(response.status).toBe(200);
    expect(response.json).toEqual([]);
  });

  it("shows no other partner's movements", async () => {
    await createTestPartner(ctx.orm, { deposits: { eur: '5' } });
    const quiet = await createTestPartner(ctx.orm);
    const response = await ctx.api.request('GET', `/v1/partner/transaction-history/${month}/${year}`, { apiKey: quiet.apiKey });
    expect(response.json).toEqual([]);
  });

  it.each([
    ['0', String(year), 'month: month must be at least 1'],
    ['13', String(year), 'month: month must be at most 12'],
    ['abc', String(year), 'month: month must be an integer from 1 to 12'],
    ['1.5', String(year), 'month: month must be an integer from 1 to 12'],
    ['1', String(year - 2), `year: year must be ${year} or ${year - 1}`],
    ['1', String(year + 1), `year: year must be ${year} or ${year - 1}`],
  ])('month %s year %s is 400 P403 with the rule in errorMessage', async (badMonth, badYear, rule) => {
    const partner = await createTestPartner(ctx.orm);
    const response = await ctx.api.request('GET', `/v1/partner/transaction-history/${badMonth}/${badYear}`, { apiKey: partner.apiKey });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ errorCode: 'P403', errorMessage: rule });
  });

  it('lists every violated rule on its own line', async () => {
    const partner = await createTestPartner(ctx.orm);
    const response = await ctx.api.request('GET', `/v1/partner/transaction-history/13/1999`, { apiKey: partner.apiKey });
    expect(response.json.errorCode).toBe('P403');
    expect(response.json.errorMessage.split('\n')).toEqual([
      'month: month must be at most 12',
      `year: year must be ${year} or ${year - 1}`,
    ]);
  });

  describe('with the clock in March', () => {
    const march = `${year}-03-15T12:00:00.000Z`;
    beforeEach(() => clock.set(march));
    afterEach(() => clock.set(new Date().toISOString()));

    it('a month in the future is 400 P435 invalid-date', async () => {
      const partner = await createTestPartner(ctx.orm);
      const response = await ctx.api.request('GET', `/v1/partner/transaction-history/4/${year}`, { apiKey: partner.apiKey });
      expect(response.status).toBe(400);
      expect(response.json).toMatchObject({ errorCode: 'P435', errorName: 'invalid-date' });
    });

    it('the month twelve months back is allowed, the one before it is 400 P435', async () => {
      const partner = await createTestPartner(ctx.orm);
      const allowed = await ctx.api.request('GET', `/v1/partner/transaction-history/3/${year - 1}`, { apiKey: partner.apiKey });
      expect(allowed.status).toBe(200);
      const tooOld = await ctx.api.request('GET', `/v1/partner/transaction-history/2/${year - 1}`, { apiKey: partner.apiKey });
      expect(tooOld.status).toBe(400);
      expect(tooOld.json).toMatchObject({ errorCode: 'P435', errorName: 'invalid-date' });
    });
  });
});

async function createTestPartnerDeposit(partnerId: string, currency: 'btc', amount: string): Promise<void> {
  const { postDeposit } = await import('../../db/services/deposit.service');
  await ctx.orm.em
    .fork()
    .transactional((em) => postDeposit(em, { partnerId, currency, amount, type: 'cryptoDeposit' }, new Date(Date.now() + 5)));
}
