import { createTestPartner } from '../support/fixtures';
import { useTestApi } from '../support/use-test-api';

const ctx = useTestApi();

describe('GET /v1/partner/balances', () => {
  it('returns the fiat balance with every field of the spec', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '1234.5' } });
    const response = await ctx.api.request('GET', '/v1/partner/balances', { apiKey: partner.apiKey });
    expect(response.status).toBe(200);
    expect(response.json.fiatBalances).toEqual([
      {
        id: partner.accounts.eur.id,
        amount: '1234.50',
        name: 'eur',
        rate: 1,
        iban: partner.accounts.eur.iban,
        status: 'ACTIVE',
      },
    ]);
    expect(response.json.fiatBalances[0].iban).toMatch(/^DE\d{20}$/);
  });

  it('returns a crypto balance per currency with wallet, EUR rate and network config keyed by network', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { btc: '0.5', usdc: '10' } });
    const response = await ctx.api.request('GET', '/v1/partner/balances', { apiKey: partner.apiKey });
    const byName = Object.fromEntries(response.json.cryptoBalances.map((balance: { name: string }) => [balance.name, balance]));
    expect(Object.keys(byName).sort()).toEqual(['btc', 'doge', 'eth', 'ltc', 'pol', 'usdc']);
    expect(byName.btc).toEqual({
      id: partner.accounts.btc.id,
      amount: '0.50000000',
      name: 'btc',
      wallet: partner.accounts.btc.walletAddress,
      rate: 85000,
      networkConfig: {
        bitcoin: {
          mainnet: true,
          name: 'bitcoin',
          withdrawal: { feeWithdrawal: 0.00005, minWithdrawal: 0.0001 },
          deposit: { minDeposit: 0.00005 },
        },
      },
    });
    expect(byName.btc.wallet).toMatch(/^bc1q/);
    expect(byName.eth.wallet).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(Object.keys(byName.usdc.networkConfig).sort()).toEqual(['ethereum', 'polygon']);
    expect(byName.usdc.amount).toBe('10.000000');
    expect(byName.doge.amount).toBe('0.00000000');
  });

  it('writes amounts with all 18 decimals, digit for digit', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '98765.123456789012345678' } });
    const response = await ctx.api.request('GET', '/v1/partner/balances', { apiKey: partner.apiKey });
    expect(response.text).toContain('"amount":"98765.123456789012345678"');
  });

  it("shows only the balances of the key's partner", async () => {
    const first = await createTestPartner(ctx.orm, { deposits: { eur: '1' } });
    const second = await createTestPartner(ctx.orm, { deposits: { eur: '2' } });
    const response = await ctx.api.request('GET', '/v1/partner/balances', { apiKey: second.apiKey });
    expect(response.json.fiatBalances[0].id).toBe(second.accounts.eur.id);
    expect(response.text).not.toContain(first.accounts.eur.id);
  });
});

describe('GET /v1/partner/balances, many at once', () => {
  it('requests of several partners arriving together each get their own balances', async () => {
    const partners = await Promise.all(['1', '2', '3', '4'].map((eur) => createTestPartner(ctx.orm, { deposits: { eur } })));
    const responses = await Promise.all(
      Array.from({ length: 24 }, (_, index) => partners[index % 4]!).map(async (partner) => ({
        partner,
        response: await ctx.api.request('GET', '/v1/partner/balances', { apiKey: partner.apiKey }),
      })),
    );
    for (const { partner, response } of responses) {
      expect(response.status).toBe(200);
      expect(response.json.fiatBalances).toEqual([expect.objectContaining({ id: partner.accounts.eur.id })]);
      expect(response.json.cryptoBalances.map((balance: { id: string }) => balance.id).sort()).toEqual(
        (['btc', 'doge', 'eth', 'ltc', 'pol', 'usdc'] as const).map((currency) => partner.accounts[currency].id).sort(),
      );
    }
    expect(responses.map(({ response }) => response.json.fiatBalances[0].amount)).toEqual(
      Array.from({ length: 24 }, (_, index) => `${(index % 4) + 1}.00`),
    );
  });
});
