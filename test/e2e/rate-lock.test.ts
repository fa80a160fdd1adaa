import { createTestPartner } from '../support/fixtures';
import { fixedClock } from '../support/http';
import { useTestApi } from '../support/use-test-api';

const clock = fixedClock('2026-05-01T10:00:00.000Z');
const ctx = useTestApi({ clock });

describe('GET /v1/partner/get-lock', () => {
  it("returns the rates of all seven currencies, the partner's fee and a 40-second validity", async () => {
    const partner = await createTestPartner(ctx.orm, { feePercentage: '0.75' });
    const response = await ctx.api.request('GET', '/v1/partner/get-lock', { apiKey: partner.apiKey });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      rates: { btc: 85000, doge: 0.15, eth: 3000, eur: 1, ltc: 80, pol: 0.2, usdc: 0.92 },
      feePercentage: 0.75,
      createdAt: '2026-05-01T10:00:00.000Z',
      validUntil: '2026-05-01T10:00:40.000Z',
    });
  });

  it('stores the lock for the partner, unused', async () => {
    const partner = await createTestPartner(ctx.orm);
    const response = await ctx.api.request('GET', '/v1/partner/get-lock', { apiKey: partner.apiKey });
    const rows = await ctx.orm.em
      .fork()
      .getConnection()
      .execute(`select partner_id, used_at, rates->>'btc' as btc from rate_lock where id = ?`, [response.json.id]);
    expect(rows).toEqual([{ partner_id: partner.partnerId, used_at: null, btc: '85000' }]);
  });

  it('gives a new lock on every call', async () => {
    const partner = await createTestPartner(ctx.orm);
    const first = await ctx.api.request('GET', '/v1/partner/get-lock', { apiKey: partner.apiKey });
    const second = await ctx.api.request('GET', '/v1/partner/get-lock', { apiKey: partner.apiKey });
    expect(first.json.id).not.toBe(second.json.id);
  });
});
