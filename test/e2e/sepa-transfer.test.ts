import { setFiatAccountStatus } from '../../db/services/account.service';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import { naturalSepaTransferBody } from '../support/sepa-payment.fixture';
import type { TestPartner } from '../support/fixtures';
import { balancesOf, historyOf } from '../support/operations';
import { TEST_WORKER_SETTINGS } from '../support/test-config';
import { useTestApi } from '../support/use-test-api';

const ctx = useTestApi();

const transfer = (partner: TestPartner, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  ctx.api.request('POST', '/v1/partner/sepa-transfer', { apiKey: partner.apiKey, body, headers });

const naturalTransfer = naturalSepaTransferBody;

async function statusOf(partner: TestPartner, transferId: string): Promise<string | undefined> {
  return (await historyOf(ctx.api, partner)).find((entry) => entry.id === transferId)?.status as string | undefined;
}

describe('POST /v1/partner/sepa-transfer', () => {
  it('answers 201 with transferId once reserved, sends a pain.001 to the bank and settles', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '1000' } });
    const response = await transfer(partner, naturalTransfer());
    expect(response.status).toBe(201);
    expect(response.json).toEqual({ transferId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect((await balancesOf(ctx.api, partner)).eur).toBe('749.50');
    await eventually(async () => expect(await statusOf(partner, response.json.transferId)).toBe('SUCCESSFUL'));
    const [entry] = await historyOf(ctx.api, partner);
    expect(entry).toMatchObject({ type: 'sepaTransfer', amount: -250.5, currency: 'eur', status: 'SUCCESSFUL' });
    expect((await balancesOf(ctx.api, partner)).eur).toBe('749.50');

    // The simulated bank's state is a table every worker shares: the pain.001 as submitted.
    const [submitted] = await ctx.orm.em
      .fork()
      .getConnection()
      .execute<{ pain001: string }[]>('select pain001 from simulated_bank_payment where transfer_id = ?', [response.json.transferId]);
    const xml = submitted!.pain001;
    expect(xml).toContain('urn:iso:std:iso:20022:tech:xsd:pain.001.001.09');
    expect(xml).toContain('<InstdAmt Ccy="EUR">250.50</InstdAmt>');
    expect(xml).toContain('<IBAN>DE89370400440532013000</IBAN>');
    expect(xml).toContain(`<IBAN>${partner.accounts.eur.iban}</IBAN>`);
    expect(xml).toContain('<Nm>Marie Curie</Nm>');
    expect(xml).toContain('<Ustrd>Invoice 2026/11-03</Ustrd>');
  });

  it('accepts the amount as a JSON number too, and a LEGAL receiver by company name', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '100' } });
    const response = await transfer(partner, {
      currency: 'EUR',
      amount: 12.3,
      receiverType: 'LEGAL',
      companyName: 'Acme GmbH',
      destinationIban: 'FR1420041010050500013M02606',
      transferTitle: 'Rent',
    });
    expect(response.status).toBe(201);
    expect((await balancesOf(ctx.api, partner)).eur).toBe('87.70');
  });

  it('releases the funds when the bank rejects the payment', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '100' } });
    const response = await transfer(
      partner,
      naturalTransfer({ amount: '40', destinationIban: TEST_WORKER_SETTINGS.SIMULATED_BANK_REJECT_IBANS }),
    );
    expect(response.status).toBe(201);
    await eventually(async () => expect(await statusOf(partner, response.json.transferId)).toBe('UNSUCCESSFUL'));
    expect((await balancesOf(ctx.api, partner)).eur).toBe('100.00');
  });

  it('refuses a partner without an ACTIVE eur account with 400 P418', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '100' } });
    await ctx.orm.em.fork().transactional((em) => setFiatAccountStatus(em, partner.partnerId, 'eur', 'WAITING_TO_BE_ACTIVATED'));
    const response = await transfer(partner, naturalTransfer());
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ errorCode: 'P418', errorName: 'partner-not-found' });
    expect((await balancesOf(ctx.api, partner)).eur).toBe('100.00');
  });

  it('refuses more than the available balance with 400 P433', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '100' } });
    const response = await transfer(partner, naturalTransfer({ amount: '100.01' }));
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ errorCode: 'P433', errorName: 'insufficient-funds' });
  });

  it.each([
    [{ currency: 'usd' }, 'currency: currency must be eur'],
    [{ amount: '10.001' }, 'amount: amount must have at most 2 decimals for eur'],
    [{ amount: '-1' }, 'amount: amount must be greater than zero'],
    [{ destinationIban: 'DE89 3704 0044 0532 0130 00' }, 'destinationIban: destinationIban must be written without spaces'],
    [{ destinationIban: 'DE89370400440532013001' }, 'destinationIban: destinationIban is not a valid IBAN'],
    // ibantools would read it, pain.001 would not: refused here, not after the money is held.
    [{ destinationIban: 'DE89-3704-0044-0532-0130-00' }, 'destinationIban: destinationIban must be the electronic form'],
    [{ destinationIban: 'BR1800360305000010009795493C1' }, 'destinationIban: destinationIban country BR is not in the SEPA area'],
    [{ receiverFirstName: undefined }, 'receiverFirstName: receiverFirstName is required for a NATURAL receiver'],
    [{ receiverType: 'LEGAL' }, 'companyName: companyName is required for a LEGAL receiver'],
    [{ receiverType: 'ALIEN' }, 'receiverType: receiverType must be NATURAL or LEGAL'],
    [{ transferTitle: 'Zahlung für Müller' }, 'transferTitle: transferTitle may use only'],
    [{ transferTitle: 'x'.repeat(141) }, 'transferTitle: transferTitle must be at most 140 characters'],
    [{ transferTitle: '' }, 'transferTitle: transferTitle is required'],
    // pain.001 carries "first last" as one Max70Text: each name fits alone, not both together.
    [
      { receiverFirstName: 'Maria Magdalena Alexandra Christina', receiverLastName: 'von Hohenzollern-Sigmaringen-Wittelsbach' },
      'receiverFirstName and receiverLastName together are too long',
    ],
    [{ amount: '1000000000.00' }, 'amount: amount must be at most 999999999.99 for a SEPA transfer'],
    [{ receiverLastName: 'Kowal\u0000ski' }, 'receiverLastName: must not contain control characters'],
    [{ transferTitle: 'Invoice \ud800' }, 'transferTitle: must be well-formed Unicode'],
  ])('refuses %j with 400 P400 naming the rule', async (overrides, message) => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '1000' } });
    const response = await transfer(partner, naturalTransfer(overrides));
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ errorCode: 'P400', errorName: 'invalid-request' });
    expect(response.json.errorMessage).toContain(message);
  });

  it('moves money once for the same Idempotency-Key sent twice and concurrently; 409 P409 for another body', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '1000' } });
    const body = naturalTransfer({ amount: '100' });
    const first = await transfer(partner, body, { 'idempotency-key': 'sepa-1' });
    const replays = await Promise.all(Array.from({ length: 4 }, () => transfer(partner, body, { 'idempotency-key': 'sepa-1' })));
    expect(replays.map((response) => response.json)).toEqual(Array(4).fill(first.json));
    expect((await balancesOf(ctx.api, partner)).eur).toBe('900.00');
    const conflict = await transfer(partner, naturalTransfer({ amount: '101' }), { 'idempotency-key': 'sepa-1' });
    expect(conflict.status).toBe(409);
    expect(conflict.json.errorCode).toBe('P409');
  });
});
