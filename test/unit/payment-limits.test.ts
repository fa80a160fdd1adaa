import fs from 'node:fs';
import path from 'node:path';
import { buildPain001 } from '../../activities/adapters/bank/pain001';
import { partnerCryptoWithdrawalBodySchema, userCryptoWithdrawalBodySchema } from '../../api/schemas/crypto-withdrawal.schema';
import { sepaTransferBodySchema } from '../../api/schemas/sepa-transfer.schema';
import {
  CRYPTO_WITHDRAWAL_LIMITS,
  SEPA_MAX_AMOUNT,
  SEPA_NAME_MAX_LENGTH,
  SEPA_REMITTANCE_MAX_LENGTH,
  sepaNaturalPersonName,
  textLength,
} from '../../core/payment-limits';
import { Decimal } from '../../core/money';
import { naturalSepaTransferBody, samplePayment } from '../support/sepa-payment.fixture';

/** What the API accepts must be what pain.001 can carry: both sides are asked the same question. */
const sepaBody = naturalSepaTransferBody;

function apiAccepts(body: Record<string, unknown>): boolean {
  return sepaTransferBodySchema.safeParse(body).success;
}

/** The payment the activity builds from an accepted body (see sepaPaymentOf). */
function painAccepts(body: Record<string, unknown>): boolean {
  const creditorName =
    body.receiverType === 'LEGAL'
      ? String(body.companyName)
      : sepaNaturalPersonName(String(body.receiverFirstName), String(body.receiverLastName));
  try {
    buildPain001(
      samplePayment({
        amount: new Decimal(String(body.amount)).toFixed(2),
        creditor: { name: creditorName, iban: String(body.destinationIban) },
        remittanceInformation: String(body.transferTitle),
      }),
    );
    return true;
  } catch {
    return false;
  }
}

describe('SEPA limits shared by the API schema and the pain.001 builder', () => {
  const names = (total: number) => {
    // "first last": the space counts, as it does in the creditor name.
    const first = 'A'.repeat(Math.floor((total - 1) / 2));
    return { receiverFirstName: first, receiverLastName: 'B'.repeat(total - 1 - first.length) };
  };

  it.each<[string, Record<string, unknown>, boolean]>([
    ['first + last names of exactly 70 together', names(SEPA_NAME_MAX_LENGTH), true],
    ['first + last names of 71 together', names(SEPA_NAME_MAX_LENGTH + 1), false],
    [
      'a 70-character company name',
      { receiverType: 'LEGAL', receiverFirstName: undefined, receiverLastName: undefined, companyName: 'C'.repeat(70) },
      true,
    ],
    [
      'a 71-character company name',
      { receiverType: 'LEGAL', receiverFirstName: undefined, receiverLastName: undefined, companyName: 'C'.repeat(71) },
      false,
    ],
    ['a 140-character title', { transferTitle: 'T'.repeat(SEPA_REMITTANCE_MAX_LENGTH) }, true],
    ['a 141-character title', { transferTitle: 'T'.repeat(SEPA_REMITTANCE_MAX_LENGTH + 1) }, false],
    ['the largest SEPA amount', { amount: SEPA_MAX_AMOUNT }, true],
    ['one cent more', { amount: '1000000000.00' }, false],
    ['the smallest amount', { amount: '0.01' }, true],
    ['a name outside the SEPA character set', { receiverLastName: 'Müller' }, false],
    ['a title outside the SEPA character set', { transferTitle: 'A&B' }, false],
  ])('%s: accepted by both is %s', (_label, overrides, accepted) => {
    const body = sepaBody(overrides);
    expect(apiAccepts(body)).toBe(accepted);
    expect(painAccepts(body)).toBe(accepted);
  });

  it('refuses the measured case: two names that fit alone but not together, saying so', () => {
    const body = sepaBody({
      receiverFirstName: 'Maria Magdalena Alexandra Christina',
      receiverLastName: 'von Hohenzollern-Sigmaringen-Wittelsbach',
    });
    expect(painAccepts(body)).toBe(false);
    const result = sepaTransferBodySchema.safeParse(body);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([
      'receiverFirstName and receiverLastName together are too long: with the space between them they make 76 characters, the creditor name of a SEPA transfer allows at most 70',
    ]);
  });

  it('refuses an amount above the pain.001 maximum that the general maximum would allow', () => {
    const result = sepaTransferBodySchema.safeParse(sepaBody({ amount: '1000000000' }));
    expect(result.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)).toEqual([
      'amount: amount must be at most 999999999.99 for a SEPA transfer',
    ]);
  });

  it('the API schemas import nothing from activities/ (the limits live in core/)', () => {
    const schemas = path.resolve(__dirname, '../../api/schemas');
    for (const file of fs.readdirSync(schemas)) {
      expect(fs.readFileSync(path.join(schemas, file), 'utf8')).not.toMatch(/from '[./]*activities\//);
    }
  });
});

describe('crypto withdrawal text limits', () => {
  const body = (overrides: Record<string, unknown>) => ({
    currency: 'eth',
    amount: '0.5',
    walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
    name: 'Jan Kowalski',
    walletType: 'CUSTODIAL',
    receiverType: 'NATURAL',
    ...overrides,
  });

  it.each<[string, number, (text: string) => Record<string, unknown>]>([
    ['name', CRYPTO_WITHDRAWAL_LIMITS.beneficiaryNameMaxLength, (text) => ({ name: text })],
    ['memo', CRYPTO_WITHDRAWAL_LIMITS.memoMaxLength, (text) => ({ memo: text })],
    ['walletAddress', CRYPTO_WITHDRAWAL_LIMITS.walletAddressMaxLength, (text) => ({ walletAddress: text })],
  ])('%s: %i characters pass the length check, one more does not (astral characters count once)', (field, max, set) => {
    const astral = '𝔸'.repeat(max);
    expect(textLength(astral)).toBe(max);
    const tooLong = partnerCryptoWithdrawalBodySchema.safeParse(body(set(`${astral}𝔸`)));
    expect(tooLong.error?.issues.map((issue) => issue.message)).toContain(`${field} must be at most ${max} characters`);
    const atLimit = partnerCryptoWithdrawalBodySchema.safeParse(body(set(astral)));
    expect(atLimit.error?.issues.map((issue) => issue.message) ?? []).not.toContain(`${field} must be at most ${max} characters`);
  });

  it('sourceExternalUserId: 255 characters, not 256', () => {
    const max = CRYPTO_WITHDRAWAL_LIMITS.externalUserIdMaxLength;
    expect(userCryptoWithdrawalBodySchema.safeParse(body({ sourceExternalUserId: 'u'.repeat(max) })).success).toBe(true);
    expect(userCryptoWithdrawalBodySchema.safeParse(body({ sourceExternalUserId: 'u'.repeat(max + 1) })).success).toBe(false);
  });
});
