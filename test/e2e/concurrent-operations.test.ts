import { Decimal } from '../../core/money';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import type { TestResponse } from '../support/http';
import { balancesOf, ethWithdrawalBody } from '../support/operations';
import { useTestApi } from '../support/use-test-api';

const ctx = useTestApi({ poolMax: 20 });

describe('many concurrent withdrawals and exchanges against one balance', () => {
  it('never overdraw it: each either succeeds or is refused with P433, and the balance adds up', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
    const locks = await Promise.all(
      Array.from(
        { length: 8 },
        async () => (await ctx.api.request('GET', '/v1/partner/get-lock', { apiKey: partner.apiKey })).json.id as string,
      ),
    );
    const withdrawals = Array.from({ length: 8 }, () =>
      ctx.api.request('POST', '/v1/partner/crypto-withdrawal', {
        apiKey: partner.apiKey,
        body: ethWithdrawalBody(),
      }),
    );
    const exchanges = locks.map((lockId) =>
      ctx.api.request('POST', '/v1/partner/exchange', {
        apiKey: partner.apiKey,
        body: { amount: 0.1, currencyFrom: 'eth', currencyTo: 'eur', lockId },
      }),
    );
    const [withdrawalResponses, exchangeResponses] = await Promise.all([Promise.all(withdrawals), Promise.all(exchanges)]);

    const outcome = (responses: TestResponse[], okStatus: number) => {
      for (const response of responses)
        expect([okStatus, 'P433']).toContain(response.status === okStatus ? okStatus : response.json.errorCode);
      return responses.filter((response) => response.status === okStatus);
    };
    const withdrawn = outcome(withdrawalResponses, 200);
    const exchanged = outcome(exchangeResponses, 201);
    // Demand is 8 × 0.1005 + 8 × 0.1 = 1.604 eth against 1 eth: some must be refused.
    expect(withdrawn.length + exchanged.length).toBeLessThan(16);
    const spent = new Decimal('0.1005').times(withdrawn.length).plus(new Decimal('0.1').times(exchanged.length));
    expect(spent.lte(1)).toBe(true);
    // Nothing that fit was refused: what is left is less than the cheapest operation.
    expect(new Decimal(1).minus(spent).lt('0.1005')).toBe(true);

    const expected = new Decimal(1).minus(spent).toFixed(18);
    expect((await balancesOf(ctx.api, partner)).eth).toBe(expected);
    // Once every withdrawal has settled, posted and available agree.
    await eventually(async () => {
      const [row] = await ctx.orm.em
        .fork()
        .getConnection()
        .execute<{ posted: string; pending: string }[]>(
          `select posted_amount::text as posted, pending_out_amount::text as pending from account where id = ?`,
          [partner.accounts.eth.id],
        );
      expect(new Decimal(row!.pending).isZero()).toBe(true);
      expect(new Decimal(row!.posted).toFixed(18)).toBe(expected);
    });
  });
});
