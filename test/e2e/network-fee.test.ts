import { createTestPartner } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { useTestApi } from '../support/use-test-api';

const ctx = useTestApi();
let partner: TestPartner;
beforeAll(async () => {
  partner = await createTestPartner(ctx.orm);
});

const fee = (query: string) => ctx.api.request('GET', `/v1/crypto-withdrawal/get-network-fee${query}`, { apiKey: partner.apiKey });

describe('GET /v1/crypto-withdrawal/get-network-fee', () => {
  it.each([
    ['?currency=btc', '0.00005'],
    ['?currency=doge', '2'],
    ['?currency=eth', '0.0005'],
    ['?currency=ltc', '0.0001'],
    ['?currency=pol', '0.1'],
    ['?currency=usdc', '3'],
    ['?currency=usdc&network=polygon', '0.1'],
    ['?currency=usdc&network=POLYGON', '0.1'],
    ['?currency=usdc&network=ethereum', '3'],
    // A currency's only network is the same as none.
    ['?currency=btc&network=bitcoin', '0.00005'],
    ['?currency=doge&network=dogecoin', '2'],
    ['?currency=eth&network=ethereum', '0.0005'],
    ['?currency=eth&network=ETHEREUM', '0.0005'],
    ['?currency=ltc&network=litecoin', '0.0001'],
    ['?currency=pol&network=polygon', '0.1'],
  ])('%s quotes %s', async (query, expected) => {
    const response = await fee(query);
    expect(response.status).toBe(200);
    expect(response.text).toBe(`{"networkFee":${expected}}`);
  });

  it.each([
    ['', 'currency: currency is required'],
    ['?currency=xrp', 'currency: currency must be one of btc, doge, eth, ltc, pol, usdc'],
    ['?currency=eur', 'currency: currency must be one of btc, doge, eth, ltc, pol, usdc'],
    ['?currency=btc&network=polygon', 'network: network must be bitcoin for btc (its only network), or omitted'],
    ['?currency=eth&network=polygon', 'network: network must be ethereum for eth (its only network), or omitted'],
    ['?currency=pol&network=ethereum', 'network: network must be polygon for pol (its only network), or omitted'],
    ['?currency=usdc&network=solana', 'network: network must be one of ethereum, polygon for usdc'],
    ['?currency=btc&currency=eth', 'currency'],
    ['?currency=usdc&network=polygon%00', 'network: must not contain control characters'],
    ['?currency=usdc&network=%ED%A0%80', 'network: network must be one of'],
  ])('%s is 400 P410 invalid-currency', async (query, message) => {
    const response = await fee(query);
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ errorCode: 'P410', errorName: 'invalid-currency' });
    expect(response.json.errorMessage).toContain(message);
  });
});
