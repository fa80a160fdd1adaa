import type { SepaPayment } from '../../activities/adapters/bank/bank-adapter';

/** A valid body of POST /v1/partner/sepa-transfer to a natural person; override what a test is about. */
export function naturalSepaTransferBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    currency: 'eur',
    amount: '250.50',
    receiverType: 'NATURAL',
    receiverFirstName: 'Marie',
    receiverLastName: 'Curie',
    destinationIban: 'DE89370400440532013000',
    transferTitle: 'Invoice 2026/11-03',
    ...overrides,
  };
}

/** A valid SEPA payment for adapter tests; override what a test is about. */
export function samplePayment(overrides: Partial<SepaPayment> = {}): SepaPayment {
  return {
    transferId: '5f0c1e2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b',
    messageId: 'MSG-20260301-0001',
    endToEndId: '5f0c1e2a3b4d4e5f8a9b0c1d2e3f4a5b',
    amount: '1234.50',
    currency: 'EUR',
    debtor: { name: 'Partner Payments GmbH', iban: 'DE89370400440532013000' },
    creditor: { name: 'Jane Doe', iban: 'FR1420041010050500013M02606' },
    remittanceInformation: 'Invoice 2026/11-03',
    requestedExecutionDate: '2026-03-02',
    createdAt: '2026-03-01T10:15:30.123Z',
    ...overrides,
  };
}
