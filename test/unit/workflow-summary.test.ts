import { OPERATION_SUMMARY, operationSearchAttributes } from '../../core/search-attributes';
import { cryptoWithdrawalMetadata, sepaTransferMetadata } from '../../operations/temporal/workflow-summary';

const withdrawalId = '5e6aba0b-fbaa-4e6f-aa3a-76436dc95935';
const partnerId = '00000000-0000-4000-8000-00000000d3e0';
const withdrawal = {
  user_id: null,
  currency: 'usdc',
  network: 'polygon',
  amount: '25.5',
  fee: '0.1',
  destination: '0x52908400098527886E0F7030069857D2E4169EE7',
  memo: 'for the flat',
  wallet_type: 'CUSTODIAL',
  receiver_type: 'NATURAL',
  beneficiary_name: 'Jan Kowalski',
  amount_eur: '23.46',
  address_key: '0x52908400098527886e0f7030069857d2e4169ee7',
} as const;

describe('workflow summaries', () => {
  it('say what moves for whom, with the amount held, and carry none of the beneficiary data', () => {
    const metadata = cryptoWithdrawalMetadata(withdrawalId, withdrawal, { id: partnerId, name: 'Acme Wallet' });
    expect(metadata.plainSummary).toBe('Crypto withdrawal 25.5 USDC on polygon for Acme Wallet');
    expect(metadata.staticDetails).toContain('**Held:** 25.6 USDC (amount + fee)');
    for (const text of Object.values(metadata)) {
      for (const personal of ['Jan', 'Kowalski', withdrawal.destination, 'flat']) expect(text).not.toContain(personal);
    }
  });

  it('show a partner name as one line of text: control characters become spaces, markdown is escaped', () => {
    const metadata = cryptoWithdrawalMetadata(withdrawalId, withdrawal, { id: partnerId, name: 'Evil\n# [click](http://x) *Co*' });
    expect(metadata.plainSummary).toBe('Crypto withdrawal 25.5 USDC on polygon for Evil # [click](http://x) *Co*');
    expect(metadata.staticSummary).toBe('Crypto withdrawal 25.5 USDC on polygon for Evil \\# \\[click\\]\\(http://x\\) \\*Co\\*');
    expect(metadata.staticDetails).not.toContain('\n# ');
  });

  it('fall back to the partner id when the name is unknown', () => {
    const transfer = {
      amount: '250.5',
      receiver_type: 'LEGAL',
      receiver_first_name: null,
      receiver_last_name: null,
      company_name: 'Curie SARL',
      destination_iban: 'FR1420041010050500013M02606',
      transfer_title: 'Invoice 7',
    } as const;
    const metadata = sepaTransferMetadata('ca594c93-93e4-425a-88f0-f8010f844bdb', transfer, { id: partnerId, name: undefined });
    expect(metadata.plainSummary).toBe(`SEPA transfer 250.5 EUR for partner ${partnerId}`);
    for (const text of Object.values(metadata)) for (const personal of ['Curie', 'FR14', 'Invoice']) expect(text).not.toContain(personal);
  });

  it('fit the OperationSummary search attribute: a summary longer than 200 characters is cut', () => {
    const long = `Crypto withdrawal 1 ETH on ethereum for ${'A'.repeat(300)}`;
    const summary = operationSearchAttributes('p', 'crypto-withdrawal', 'eth', long).find((pair) => pair.key === OPERATION_SUMMARY);
    expect(summary?.value).toHaveLength(200);
    expect(String(summary?.value).endsWith('…')).toBe(true);
    expect(operationSearchAttributes('p', 'exchange', 'eur').some((pair) => pair.key === OPERATION_SUMMARY)).toBe(false);
  });
});
