import { randomUUID } from 'node:crypto';
import { createTestPartner } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { balancesOf } from '../support/operations';
import { useTestApi } from '../support/use-test-api';

const ctx = useTestApi();

async function lockFor(partner: TestPartner): Promise<string> {
  const response = await ctx.api.request('GET', '/v1/partner/get-lock', { apiKey: partner.apiKey });
  return response.json.id;
}

const balances = (partner: TestPartner) => balancesOf(ctx.api, partner);

const exchange = (partner: TestPartner, body: unknown, headers: Record<string, string> = {}) =>
  ctx.api.request('POST', '/v1/partner/exchange', {
    apiKey: partner.apiKey,
    body: typeof body === 'string' ? body : (body as object),
    headers,
  });

describe('POST /v1/partner/exchange', () => {
  it('debits the source and credits the target at the locked rate minus the fee, once final (201)', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '1000' }, feePercentage: '1' });
    const lockId = await lockFor(partner);
    const response = await exchange(partner, { amount: 100, currencyFrom: 'eur', currencyTo: 'btc', lockId });
    expect(response.status).toBe(201);
    expect(response.json).toEqual({ exchangeId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    // 100 × 1 / 85000 × 0.99 = 0.001164705882…, rounded down to 8 decimals.
    expect(await balances(partner)).toMatchObject({ eur: '900.00', btc: '0.00116470' });
  });

  it('shows in the history with the credited amount and the debited amount negative', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { btc: '1' }, feePercentage: '0.5' });
    const lockId = await lockFor(partner);
    const response = await exchange(partner, { amount: '0.1', currencyFrom: 'btc', currencyTo: 'eur', lockId });
    const now = new Date();
    const history = await ctx.api.request('GET', `/v1/partner/transaction-history/${now.getUTCMonth() + 1}/${now.getUTCFullYear()}`, {
      apiKey: partner.apiKey,
    });
    // 0.1 × 85000 × 0.995 = 8457.5
    expect(history.json[0]).toMatchObject({
      id: response.json.exchangeId,
      type: 'exchange',
      amount: 8457.5,
      currency: 'eur',
      amountFrom: -0.1,
      currencyFrom: 'btc',
      status: 'SUCCESSFUL',
    });
  });

  it('takes an amount with 18 decimals exactly, and the balances read it back to the last digit', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '2' } });
    const lockId = await lockFor(partner);
    const response = await exchange(
      partner,
      '{"amount": 0.123456789012345678, "currencyFrom": "eth", "currencyTo": "pol", "lockId": "' + lockId + '"}',
    );
    expect(response.status).toBe(201);
    const after = await balances(partner);
    expect(after.eth).toBe('1.876543210987654322');
    // 0.123456789012345678 × 3000 / 0.2 × 0.99 = 1833.333316833333318300 exactly.
    expect(after.pol).toBe('1833.333316833333318300');
  });

  it.each([
    ['an unknown lock', async () => randomUUID()],
    ["another partner's lock", async () => lockFor(await createTestPartner(ctx.orm))],
  ])('refuses %s with 400 P432', async (_name, lock) => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '100' } });
    const response = await exchange(partner, { amount: 10, currencyFrom: 'eur', currencyTo: 'eth', lockId: await lock() });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ errorCode: 'P432', errorName: 'invalid-exchange-lock' });
    expect((await balances(partner)).eur).toBe('100.00');
  });

  it('refuses a lockId that is not even a UUID with 400 P432, like any lock that does not exist', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '100' } });
    const headers = { 'idempotency-key': `bad-lock-${randomUUID()}` };
    const response = await exchange(partner, { amount: 10, currencyFrom: 'eur', currencyTo: 'eth', lockId: 'not-a-uuid' }, headers);
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ errorCode: 'P432', errorName: 'invalid-exchange-lock' });
    // Refused before the key was claimed: the corrected request may use the same key.
    const corrected = await exchange(
      partner,
      { amount: 10, currencyFrom: 'eur', currencyTo: 'eth', lockId: await lockFor(partner) },
      headers,
    );
    expect(corrected.status).toBe(201);
  });

  it('refuses a lock used once already with 400 P432: a lock buys one exchange', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '100' } });
    const lockId = await lockFor(partner);
    expect((await exchange(partner, { amount: 10, currencyFrom: 'eur', currencyTo: 'eth', lockId })).status).toBe(201);
    const second = await exchange(partner, { amount: 10, currencyFrom: 'eur', currencyTo: 'eth', lockId });
    expect(second.status).toBe(400);
    expect(second.json).toMatchObject({ errorCode: 'P432', errorMessage: 'the lock has already been used' });
    expect((await balances(partner)).eur).toBe('90.00');
  });

  it('refuses an expired lock with 400 P432', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '100' } });
    const lockId = await lockFor(partner);
    await ctx.orm.em
      .fork()
      .getConnection()
      .execute(`update rate_lock set created_at = now() - interval '41 seconds', valid_until = now() - interval '1 second' where id = ?`, [
        lockId,
      ]);
    const response = await exchange(partner, { amount: 10, currencyFrom: 'eur', currencyTo: 'eth', lockId });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ errorCode: 'P432', errorMessage: 'the lock has expired' });
  });

  it('refuses more than the available balance with 400 P433 and moves nothing', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '50' } });
    const lockId = await lockFor(partner);
    const response = await exchange(partner, { amount: 50.01, currencyFrom: 'eur', currencyTo: 'eth', lockId });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ errorCode: 'P433', errorName: 'insufficient-funds' });
    expect(await balances(partner)).toMatchObject({ eur: '50.00', eth: '0.000000000000000000' });
  });

  it('refuses with 400 P400 an exchange that would credit more than any balance may hold, and moves nothing', async () => {
    // 10^15 btc is the largest amount, but at 85000 eur per btc it would credit 8.5 × 10^19 eur.
    const partner = await createTestPartner(ctx.orm, { deposits: { btc: '1' } });
    const response = await exchange(partner, {
      amount: '1000000000000000',
      currencyFrom: 'btc',
      currencyTo: 'eur',
      lockId: await lockFor(partner),
    });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      errorCode: 'P400',
      errorName: 'invalid-request',
      errorMessage: expect.stringContaining('amount is too large'),
    });
    expect(await balances(partner)).toMatchObject({ btc: '1.00000000', eur: '0.00' });
  });

  it.each([
    [{ amount: 10, currencyFrom: 'eur', currencyTo: 'eur' }, 'currencyTo: currencyTo must differ from currencyFrom'],
    [{ amount: 10, currencyFrom: 'eur', currencyTo: 'xrp' }, 'currencyTo: must be one of'],
    [{ amount: 10.001, currencyFrom: 'eur', currencyTo: 'btc' }, 'amount: amount must have at most 2 decimals for eur'],
    [{ amount: 0, currencyFrom: 'eur', currencyTo: 'btc' }, 'amount: amount must be greater than zero'],
    [{ amount: -5, currencyFrom: 'eur', currencyTo: 'btc' }, 'amount: amount must be greater than zero'],
    [{ amount: 1e30, currencyFrom: 'eur', currencyTo: 'btc' }, 'amount: amount must be at most'],
    [{ amount: 'ten', currencyFrom: 'eur', currencyTo: 'btc' }, 'amount: amount must be a decimal number'],
    [{ amount: '1e-3000000', currencyFrom: 'eur', currencyTo: 'btc' }, 'amount: amount must have an exponent of at most 3 digits'],
    [{ amount: '9'.repeat(60_000), currencyFrom: 'eur', currencyTo: 'btc' }, 'amount: amount must be at most 64 characters'],
    [{ amount: 10, currencyFrom: 'eur', currencyTo: 'btc\u0000' }, 'currencyTo: must not contain control characters'],
    [{ currencyFrom: 'eur', currencyTo: 'btc' }, 'amount'],
    [{ amount: 10, currencyFrom: 'eur', currencyTo: 'btc', lockId: 42 }, 'lockId: lockId must be the id of a lock'],
    [{ amount: 10, currencyFrom: 'eur', currencyTo: 'btc', surprise: true }, 'surprise'],
  ])('refuses the invalid body %j with 400 P400', async (body, message) => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '100' } });
    const lockId = await lockFor(partner);
    const response = await exchange(partner, { lockId, ...body });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ errorCode: 'P400', errorName: 'invalid-request' });
    expect(response.json.errorMessage).toContain(message);
  });

  describe('idempotency', () => {
    it('the same key and body sent twice return the first response and exchange once', async () => {
      const partner = await createTestPartner(ctx.orm, { deposits: { eur: '100' } });
      const body = { amount: 10, currencyFrom: 'eur', currencyTo: 'ltc', lockId: await lockFor(partner) };
      const first = await exchange(partner, body, { 'idempotency-key': 'exchange-1' });
      const second = await exchange(partner, body, { 'idempotency-key': 'exchange-1' });
      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(second.json).toEqual(first.json);
      expect((await balances(partner)).eur).toBe('90.00');
    });

    it('the same key and body sent concurrently exchange once', async () => {
      const partner = await createTestPartner(ctx.orm, { deposits: { eur: '100' } });
      const body = { amount: 10, currencyFrom: 'eur', currencyTo: 'ltc', lockId: await lockFor(partner) };
      const responses = await Promise.all(
        Array.from({ length: 6 }, () => exchange(partner, body, { 'idempotency-key': 'exchange-concurrent' })),
      );
      expect(responses.map((response) => response.status)).toEqual(Array(6).fill(201));
      expect(new Set(responses.map((response) => response.json.exchangeId)).size).toBe(1);
      expect((await balances(partner)).eur).toBe('90.00');
    });

    it('a refusal is an answer too: replaying its key gives the same P433', async () => {
      const partner = await createTestPartner(ctx.orm, { deposits: { eur: '5' } });
      const body = { amount: 10, currencyFrom: 'eur', currencyTo: 'ltc', lockId: await lockFor(partner) };
      const first = await exchange(partner, body, { 'idempotency-key': 'exchange-poor' });
      const second = await exchange(partner, body, { 'idempotency-key': 'exchange-poor' });
      expect(first.json.errorCode).toBe('P433');
      expect(second.status).toBe(400);
      expect(second.json).toEqual(first.json);
    });

    it('the same key with another body is 409 P409 and moves nothing', async () => {
      const partner = await createTestPartner(ctx.orm, { deposits: { eur: '100' } });
      const lockId = await lockFor(partner);
      await exchange(partner, { amount: 10, currencyFrom: 'eur', currencyTo: 'ltc', lockId }, { 'idempotency-key': 'exchange-2' });
      const other = await exchange(
        partner,
        { amount: 20, currencyFrom: 'eur', currencyTo: 'ltc', lockId: await lockFor(partner) },
        { 'idempotency-key': 'exchange-2' },
      );
      expect(other.status).toBe(409);
      expect(other.json).toMatchObject({ errorCode: 'P409', errorName: 'idempotency-conflict' });
      expect((await balances(partner)).eur).toBe('90.00');
    });

    it('keys belong to one partner: another partner may use the same key', async () => {
      const first = await createTestPartner(ctx.orm, { deposits: { eur: '100' } });
      const second = await createTestPartner(ctx.orm, { deposits: { eur: '100' } });
      const a = await exchange(
        first,
        { amount: 10, currencyFrom: 'eur', currencyTo: 'ltc', lockId: await lockFor(first) },
        { 'idempotency-key': 'shared' },
      );
      const b = await exchange(
        second,
        { amount: 10, currencyFrom: 'eur', currencyTo: 'ltc', lockId: await lockFor(second) },
        { 'idempotency-key': 'shared' },
      );
      expect(a.status).toBe(201);
      expect(b.status).toBe(201);
      expect(a.json.exchangeId).not.toBe(b.json.exchangeId);
    });

    it('refuses a malformed key with 400 P400', async () => {
      const partner = await createTestPartner(ctx.orm, { deposits: { eur: '100' } });
      const response = await exchange(
        partner,
        { amount: 1, currencyFrom: 'eur', currencyTo: 'ltc', lockId: await lockFor(partner) },
        { 'idempotency-key': 'x'.repeat(300) },
      );
      expect(response.status).toBe(400);
      expect(response.json.errorCode).toBe('P400');
    });
  });
});
