import { newWalletAddress } from '../../db/services/account-identifiers';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { balancesOf, registerUser } from '../support/operations';
import { runOpsCli } from '../support/ops-cli';
import { useTestApi } from '../support/use-test-api';

const ctx = useTestApi();

const setPolicy = (partner: TestPartner, ...flags: string[]) =>
  runOpsCli(['partner', 'set-policy', '--partner', partner.partnerId, ...flags]);
const addToBook = (partner: TestPartner, body: Record<string, unknown>) =>
  ctx.api.request('POST', '/v1/partner/withdrawal-addresses', { apiKey: partner.apiKey, body: { label: 'payee', ...body } });
const withdraw = (partner: TestPartner, body: Record<string, unknown>, path = '/v1/partner/crypto-withdrawal') =>
  ctx.api.request('POST', path, {
    apiKey: partner.apiKey,
    body: { currency: 'eth', amount: 0.5, name: 'Jan Kowalski', walletType: 'CUSTODIAL', receiverType: 'NATURAL', ...body },
  });

/** A funded partner whose policy requires the allowlist, with the cooling-off given. */
async function allowlistedPartner(coolingOffMinutes: number): Promise<TestPartner> {
  const partner = await createTestPartner(ctx.orm, { deposits: { eth: '2', usdc: '1000' } });
  const set = await setPolicy(partner, '--allowlist', 'required', '--cooling-off-minutes', String(coolingOffMinutes));
  expect(set.output).toMatchObject({ allowlist: 'required', coolingOffMinutes });
  return partner;
}

const NOT_IN_BOOK = (currency: string, network: string) => ({
  errorCode: 'P441',
  errorName: 'address-not-allowlisted',
  errorMessage: `walletAddress is not an ACTIVE entry of the withdrawal-address book (${currency} on ${network}), and this partner's policy requires one`,
});

describe('the allowlist (partner policy: --allowlist required)', () => {
  it('refuses a destination not in the book with 400 P441 before anything is held; the workflow Completes as a refusal', async () => {
    const partner = await allowlistedPartner(0);
    const refused = await withdraw(partner, { walletAddress: newWalletAddress('eth') });
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual(NOT_IN_BOOK('eth', 'ethereum'));
    expect((await balancesOf(ctx.api, partner)).eth).toBe('2.000000000000000000');

    const workflow = await eventually(async () => {
      const found = [];
      for await (const each of ctx.temporal.workflow.list({ query: `PartnerId = '${partner.partnerId}'` })) found.push(each);
      expect(found).toHaveLength(1);
      return found[0]!;
    });
    const handle = ctx.temporal.workflow.getHandle(workflow.workflowId);
    expect(await handle.result()).toMatchObject({
      status: 'UNSUCCESSFUL',
      stage: 'REFUSED_ADDRESS_NOT_ALLOWLISTED',
      refusal: { kind: 'address-not-allowlisted' },
    });
    expect((await handle.describe()).status.name).toBe('COMPLETED');
    const withdrawalId = workflow.workflowId.replace('crypto-withdrawal-', '');
    const sql = (query: string) => ctx.orm.em.fork().getConnection().execute(query, [withdrawalId]);
    // Nothing held: no withdrawal row, and the tombstone every refused reservation leaves.
    expect(await sql('select count(*)::int as rows from crypto_withdrawal where id = ?')).toEqual([{ rows: 0 }]);
    expect(await sql('select state from ledger_transfer where id = ?')).toEqual([{ state: 'VOIDED' }]);
  });

  it('refuses a PENDING entry (in its cooling-off), saying until when', async () => {
    const partner = await allowlistedPartner(60);
    const address = newWalletAddress('eth');
    const entry = await addToBook(partner, { currency: 'eth', address });
    expect(entry.json.status).toBe('PENDING');
    const refused = await withdraw(partner, { walletAddress: address });
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      errorCode: 'P441',
      errorName: 'address-not-allowlisted',
      errorMessage: `walletAddress is in the withdrawal-address book (eth on ethereum) but PENDING until ${entry.json.activeFrom} (its cooling-off)`,
    });
    expect((await balancesOf(ctx.api, partner)).eth).toBe('2.000000000000000000');
  });

  it('accepts an ACTIVE entry, in any letter case of the address; refuses it again once deleted', async () => {
    const partner = await allowlistedPartner(0);
    const address = newWalletAddress('eth');
    const entry = await addToBook(partner, { currency: 'eth', address });
    expect(entry.json.status).toBe('ACTIVE');
    const accepted = await withdraw(partner, { walletAddress: address.toLowerCase() });
    expect(accepted.status).toBe(200);
    expect((await balancesOf(ctx.api, partner)).eth).toBe('1.499500000000000000');

    const deleted = await ctx.api.request('DELETE', `/v1/partner/withdrawal-addresses/${entry.json.id}`, { apiKey: partner.apiKey });
    expect(deleted.status).toBe(204);
    const refused = await withdraw(partner, { walletAddress: address });
    expect(refused.json).toEqual(NOT_IN_BOOK('eth', 'ethereum'));
    expect((await balancesOf(ctx.api, partner)).eth).toBe('1.499500000000000000');
  });

  it('matches the network too: a usdc entry on polygon lets usdc go on polygon only', async () => {
    const partner = await allowlistedPartner(0);
    const address = newWalletAddress('usdc');
    expect((await addToBook(partner, { currency: 'usdc', network: 'polygon', address })).status).toBe(201);
    const onEthereum = await withdraw(partner, { currency: 'usdc', amount: 20, walletAddress: address });
    expect(onEthereum.json).toEqual(NOT_IN_BOOK('usdc', 'ethereum'));
    const onPolygon = await withdraw(partner, { currency: 'usdc', amount: 20, network: 'POLYGON', walletAddress: address });
    expect(onPolygon.status).toBe(200);
  });

  it('holds for a withdrawal on behalf of a user as well', async () => {
    const partner = await allowlistedPartner(0);
    await registerUser(ctx.orm, partner, 'allowlist-user');
    const address = newWalletAddress('eth');
    const forUser = (walletAddress: string) =>
      withdraw(partner, { walletAddress, sourceExternalUserId: 'allowlist-user' }, '/v1/crypto-withdrawal');
    const refused = await forUser(address);
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual(NOT_IN_BOOK('eth', 'ethereum'));
    expect((await balancesOf(ctx.api, partner)).eth).toBe('2.000000000000000000');
    await addToBook(partner, { currency: 'eth', address });
    expect((await forUser(address)).status).toBe(200);
  });

  it('lets any valid address through with the allowlist off: by default, and once operators turn it off again', async () => {
    const unrestricted = await createTestPartner(ctx.orm, { deposits: { eth: '2' } });
    expect((await withdraw(unrestricted, { walletAddress: newWalletAddress('eth') })).status).toBe(200);

    const partner = await allowlistedPartner(0);
    expect((await withdraw(partner, { walletAddress: newWalletAddress('eth') })).status).toBe(400);
    expect((await setPolicy(partner, '--allowlist', 'off')).output).toMatchObject({ allowlist: 'off', coolingOffMinutes: 0 });
    expect((await withdraw(partner, { walletAddress: newWalletAddress('eth') })).status).toBe(200);
  });
});
