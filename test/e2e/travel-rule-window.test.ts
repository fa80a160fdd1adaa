import { Decimal } from '../../core/money';
import { newWalletAddress } from '../../db/services/account-identifiers';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { balancesOf } from '../support/operations';
import { runOpsCli } from '../support/ops-cli';
import { TEST_WORKER_SETTINGS } from '../support/test-config';
import { useTestApi } from '../support/use-test-api';

const ctx = useTestApi();

/** 3500 pol is 700 EUR at the default rates (0.2): under the 1000 EUR threshold alone. */
const withdraw700Eur = (partner: TestPartner, walletAddress: string) =>
  ctx.api.request('POST', '/v1/partner/crypto-withdrawal', {
    apiKey: partner.apiKey,
    body: { currency: 'pol', amount: '3500', walletAddress, name: 'Jan Kowalski', walletType: 'NON_CUSTODIAL', receiverType: 'NATURAL' },
  });

async function reaches(partner: TestPartner, withdrawalId: string, status: string): Promise<void> {
  await eventually(
    async () => {
      const response = await ctx.api.request('GET', `/v1/crypto-withdrawal/details/${withdrawalId}`, { apiKey: partner.apiKey });
      expect(response.json.status).toBe(status);
    },
    { timeoutMs: Number(TEST_WORKER_SETTINGS.TRAVEL_RULE_DEADLINE_MS) + 15_000 },
  );
}

/** What the travel-rule check stored: whether the data is required, and the destination's 24-hour sum it compared. */
async function travelRuleOf(withdrawalId: string): Promise<{ requiresCompletion: boolean; sumEur: string }> {
  const [row] = await ctx.orm.em
    .fork()
    .getConnection()
    .execute<{ travel_rule: { requiresCompletion: boolean; transfer: { destinationEurLast24h: string } } }[]>(
      'select travel_rule from crypto_withdrawal where id = ?',
      [withdrawalId],
    );
  return {
    requiresCompletion: row!.travel_rule.requiresCompletion,
    sumEur: new Decimal(row!.travel_rule.transfer.destinationEurLast24h).toFixed(),
  };
}

describe('the travel-rule threshold over 24 hours, per partner and destination', () => {
  it('splitting EUR 2,100 to one address into three of EUR 700 asks for the data from the second on', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { pol: '20000' } });
    const address = newWalletAddress('pol');
    const first = await withdraw700Eur(partner, address);
    expect(first.status).toBe(200);
    await reaches(partner, first.json.withdrawalId, 'SUCCESSFUL');
    expect(await travelRuleOf(first.json.withdrawalId)).toEqual({ requiresCompletion: false, sumEur: '700' });

    // Sent one after the other, while the second still waits for its data (a failed one gives its share back).
    // The same EVM address in lower case is the same destination.
    const second = await withdraw700Eur(partner, address.toLowerCase());
    expect(second.status).toBe(200);
    const third = await withdraw700Eur(partner, address);
    expect(third.status).toBe(200);
    await reaches(partner, second.json.withdrawalId, 'IN_PROGRESS_TR_DATA');
    await reaches(partner, third.json.withdrawalId, 'IN_PROGRESS_TR_DATA');
    expect(await travelRuleOf(second.json.withdrawalId)).toEqual({ requiresCompletion: true, sumEur: '1400' });
    expect(await travelRuleOf(third.json.withdrawalId)).toEqual({ requiresCompletion: true, sumEur: '2100' });

    // Without the data, both fail at the deadline and release what they held.
    await reaches(partner, second.json.withdrawalId, 'UNSUCCESSFUL');
    await reaches(partner, third.json.withdrawalId, 'UNSUCCESSFUL');
    expect((await balancesOf(ctx.api, partner)).pol).toBe('16499.900000000000000000');
    // Operators see what the threshold was compared with.
    const shown = await runOpsCli(['operation', 'show', second.json.withdrawalId], { TEMPORAL_ADDRESS: '127.0.0.1:9' });
    const { travelRule } = shown.output.operation;
    expect(travelRule.requiresCompletion).toBe(true);
    expect([new Decimal(travelRule.amountEur).toFixed(), new Decimal(travelRule.destinationEurLast24h).toFixed()]).toEqual(['700', '1400']);
  });

  it('three of EUR 700 to one address sent in parallel: at most one goes without the data', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { pol: '20000' } });
    const address = newWalletAddress('pol');
    // Reserved in parallel, they commit in another order than their clocks read: each check counts every other one
    // committed by then, whenever it was created, so of any two the one checked later sees the other.
    const responses = await Promise.all([0, 1, 2].map(() => withdraw700Eur(partner, address)));
    for (const response of responses) expect(response.status).toBe(200);
    const checked = await Promise.all(
      responses.map(({ json }) =>
        eventually(async () => {
          const [row] = await ctx.orm.em
            .fork()
            .getConnection()
            .execute<{ travel_rule: unknown }[]>('select travel_rule from crypto_withdrawal where id = ?', [json.withdrawalId]);
          expect(row?.travel_rule).toBeTruthy();
          return travelRuleOf(json.withdrawalId);
        }),
      ),
    );
    expect(checked.filter(({ requiresCompletion }) => requiresCompletion).length).toBeGreaterThanOrEqual(2);
  });

  it('three of EUR 700 to three addresses: none asks for the data', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { pol: '20000' } });
    const responses = [];
    for (let index = 0; index < 3; index += 1) responses.push(await withdraw700Eur(partner, newWalletAddress('pol')));
    for (const response of responses) {
      expect(response.status).toBe(200);
      await reaches(partner, response.json.withdrawalId, 'SUCCESSFUL');
      expect(await travelRuleOf(response.json.withdrawalId)).toEqual({ requiresCompletion: false, sumEur: '700' });
    }
    expect((await balancesOf(ctx.api, partner)).pol).toBe('9499.700000000000000000');
  });
});
