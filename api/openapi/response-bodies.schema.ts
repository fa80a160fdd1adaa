import { z } from 'zod';
import { CRYPTO_CURRENCIES, CURRENCIES, FIAT_CURRENCIES, NETWORKS } from '../../core/currencies';
import type { OperationStatus } from '../../core/operation-status';
import { exactNumber } from './exact-number';

/**
 * The success bodies, as the routes write them (through api/http/respond.ts). Only the OpenAPI document
 * and the tests use these; the e2e test parses real answers
 * with them, so a field added to a response without being added here fails it.
 */

export const OPERATION_STATUSES = [
  'IN_PROGRESS',
  'IN_PROGRESS_TR_DATA',
  'SUCCESSFUL',
  'UNSUCCESSFUL',
] as const satisfies readonly OperationStatus[];

const operationStatus = z.enum(OPERATION_STATUSES).meta({
  id: 'OperationStatus',
  description:
    'IN_PROGRESS: under way; IN_PROGRESS_TR_DATA: waiting for travel-rule data; SUCCESSFUL: done; UNSUCCESSFUL: failed or refused, any held funds released.',
});

/** The spec's transaction types (the history shows the ones this service records). */
const TRANSACTION_TYPES = [
  'exchange',
  'atmFee',
  'sepaDeposit',
  'sepaTransfer',
  'transfer',
  'cardTransaction',
  'cryptoDeposit',
  'cryptoWithdrawal',
  'atmWithdrawal',
  'fiatDeposit',
  'refund',
  'cashback',
  'payment',
  'partialRefund',
  'fiatWithdrawal',
  'transaction',
] as const;

const id = (description: string, example: string) => z.uuid().meta({ description, examples: [example] });
const timestamp = (description: string, example: string) => z.iso.datetime().meta({ description, examples: [example] });
const currency = z.enum(CURRENCIES).meta({ description: 'A currency slug.', examples: ['btc'] });

const networkConfigSchema = z
  .strictObject({
    mainnet: z.boolean().meta({ description: 'Whether the network is a mainnet (false: a testnet).' }),
    name: z.enum(NETWORKS).meta({ description: 'The network name.' }),
    withdrawal: z.strictObject({
      feeWithdrawal: exactNumber('The network fee a withdrawal pays, in the currency.', ['0.00005']),
      minWithdrawal: exactNumber('The smallest amount a withdrawal may send, in the currency.', ['0.0001']),
    }),
    deposit: z.strictObject({
      minDeposit: exactNumber('The smallest deposit credited, in the currency.', ['0.0001']),
    }),
  })
  .meta({ id: 'NetworkConfig' });

const rate = exactNumber('The EUR price of one unit of the currency.', ['61234.5']);

export const fiatBalanceSchema = z
  .strictObject({
    id: id('The balance id.', '0f8fad5b-d9cb-469f-a165-70867728950e'),
    amount: z.string().meta({
      description: 'The available balance (posted minus held), an exact decimal as a string.',
      examples: ['1250.5'],
    }),
    name: z.enum(FIAT_CURRENCIES).meta({ description: 'The currency slug.' }),
    rate,
    iban: z.string().meta({ description: 'The IBAN of the balance.', examples: ['DE89370400440532013000'] }),
    status: z.enum(['ACTIVE', 'WAITING_TO_BE_ACTIVATED']).meta({ description: 'Whether the balance can be used yet.' }),
  })
  .meta({ id: 'FiatBalance' });

export const cryptoBalanceSchema = z
  .strictObject({
    id: id('The balance id.', '7c9e6679-7425-40de-944b-e07fc1f90ae7'),
    amount: z.string().meta({
      description: 'The available balance (posted minus held), an exact decimal as a string.',
      examples: ['0.000000000000000001'],
    }),
    name: z.enum(CRYPTO_CURRENCIES).meta({ description: 'The currency slug.' }),
    wallet: z
      .string()
      .meta({ description: 'The deposit address of the balance.', examples: ['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'] }),
    rate,
    networkConfig: z.partialRecord(z.enum(NETWORKS), networkConfigSchema).meta({
      description: 'Per network the currency moves on (usdc: ethereum and polygon), its fees and minimums.',
    }),
  })
  .meta({ id: 'CryptoBalance' });

export const balancesBodySchema = z
  .strictObject({
    fiatBalances: z.array(fiatBalanceSchema),
    cryptoBalances: z.array(cryptoBalanceSchema),
  })
  .meta({ id: 'Balances' });

export const transactionHistoryEntrySchema = z
  .strictObject({
    id: id('The id of the operation or deposit (or of a network fee kept, see withdrawalId).', '5b0e1c9e-8d55-4a8f-9a51-1f3c2f0f4b7e'),
    createdAt: timestamp('When the entry was created (UTC, to the millisecond).', '2026-11-21T16:12:27.786Z'),
    type: z.enum(TRANSACTION_TYPES).meta({ description: 'The kind of transaction.' }),
    amount: exactNumber(
      'Signed: credits positive, debits negative (a withdrawal shows amount plus fee). For an exchange, what was credited.',
      ['-0.01505', '250'],
    ),
    currency,
    amountFrom: exactNumber('Only for an exchange: the amount debited, negative.', ['-100.5']).optional(),
    currencyFrom: currency.optional().meta({ description: 'Only for an exchange: the currency debited.' }),
    status: operationStatus,
    withdrawalId: id(
      'Only on the network fee kept from a crypto withdrawal whose transaction failed on chain (type cryptoWithdrawal, the fee negative, SUCCESSFUL): that withdrawal, which shows UNSUCCESSFUL.',
      '5b0e1c9e-8d55-4a8f-9a51-1f3c2f0f4b7e',
    ).optional(),
  })
  .meta({ id: 'TransactionHistoryEntry' });

export const transactionHistoryBodySchema = z.array(transactionHistoryEntrySchema).meta({
  description: 'The entries of the month, newest first.',
});

export const rateLockBodySchema = z
  .strictObject({
    id: id('The lock id: the lockId of one exchange.', '5b0e1c9e-8d55-4a8f-9a51-1f3c2f0f4b7e'),
    rates: z
      .strictObject(
        Object.fromEntries(CURRENCIES.map((slug) => [slug, exactNumber(`The EUR price of one ${slug}.`, [slug === 'eur' ? '1' : '0.5'])])),
      )
      .meta({ description: 'The EUR price of one unit of each currency (eur is 1).' }),
    feePercentage: exactNumber("The partner's exchange fee in percent, kept from the credited amount.", ['1.5']),
    createdAt: timestamp('When the lock was made.', '2026-11-21T16:12:27.786Z'),
    validUntil: timestamp('40 seconds after createdAt: an exchange must arrive before then.', '2026-11-21T16:13:07.786Z'),
  })
  .meta({ id: 'RateLock' });

export const exchangeCreatedBodySchema = z
  .strictObject({ exchangeId: id('The exchange id.', '2b1a6c5e-3f0e-4c52-8f7d-0c8c2a9f4e11') })
  .meta({ id: 'ExchangeCreated' });

export const withdrawalCreatedBodySchema = z
  .strictObject({
    withdrawalId: id('The withdrawal id, for GET /v1/crypto-withdrawal/details/{withdrawalId}.', '9d5f2c1a-6b8e-4f3d-a2c7-1e0b9a8d7c6f'),
  })
  .meta({ id: 'WithdrawalCreated' });

export const transferCreatedBodySchema = z
  .strictObject({ transferId: id('The SEPA transfer id.', '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f') })
  .meta({ id: 'TransferCreated' });

export const networkFeeBodySchema = z
  .strictObject({ networkFee: exactNumber('The fee a withdrawal pays, in the currency, on top of its amount.', ['0.00005']) })
  .meta({ id: 'NetworkFee' });

const text = (description: string, example: string) => z.string().meta({ description, examples: [example] });

const withdrawalUserSchema = z
  .strictObject({
    externalUserId: text("The user's id in the partner's system.", 'user-4711'),
    email: text('E-mail address.', 'jane.doe@example.org'),
    firstName: text('First name.', 'Jane'),
    lastName: text('Last name.', 'Doe'),
    address: text('Street address.', 'Hauptstrasse 1'),
    city: text('City.', 'Berlin'),
    country: text('Two-letter country code.', 'DE'),
    documentType: text('Identity document type.', 'PASSPORT'),
    documentNumber: text('Identity document number.', 'C01X00T47'),
    pesel: z
      .string()
      .nullable()
      .meta({ description: 'Polish national id number, if any.', examples: [null] }),
    birthCountry: z
      .string()
      .nullable()
      .meta({ description: 'Two-letter country code of birth, if known.', examples: ['DE'] }),
    birthDate: z.iso
      .date()
      .nullable()
      .meta({ description: 'Date of birth (YYYY-MM-DD), if known.', examples: ['1990-04-01'] }),
  })
  .meta({ id: 'WithdrawalUser' });

export const withdrawalDetailsBodySchema = z
  .strictObject({
    id: id('The withdrawal id.', '9d5f2c1a-6b8e-4f3d-a2c7-1e0b9a8d7c6f'),
    amount: exactNumber('What the destination receives.', ['0.015']),
    fee: exactNumber('The network fee, debited on top of the amount.', ['0.00005']),
    destination: text('The destination wallet address.', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'),
    status: operationStatus,
    transactionHash: text('The blockchain transaction hash; empty until the withdrawal is broadcast.', ''),
    currency: z.strictObject({
      network: z
        .string()
        .meta({ description: 'The network for usdc (ethereum or polygon); empty for every other currency.', examples: [''] }),
      name: z
        .enum(CRYPTO_CURRENCIES.map((slug) => slug.toUpperCase()))
        .meta({ description: 'The currency, upper case.', examples: ['BTC'] }),
    }),
    createdAt: timestamp('When the withdrawal was made.', '2026-11-21T16:12:27.786Z'),
    user: withdrawalUserSchema
      .nullable()
      .meta({ description: "The user it was made for (POST /v1/crypto-withdrawal); null for the partner's own." }),
  })
  .meta({ id: 'WithdrawalDetails' });
