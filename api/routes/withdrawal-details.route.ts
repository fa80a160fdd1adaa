import { z } from 'zod';
import { CRYPTO_CURRENCIES } from '../../core/currencies';
import { CURRENCY_NETWORKS } from '../../core/networks';
import type { CryptoCurrency } from '../../core/currencies';
import { DomainError } from '../../core/errors';
import { Decimal } from '../../core/money';
import { findWithdrawalDetails } from '../../db/queries/crypto-withdrawal.queries';
import type { WithdrawalDetailsRow } from '../../db/queries/crypto-withdrawal.queries';
import type { ApiDependencies } from '../dependencies';
import { jsonNumber } from '../http/exact-json';
import { respond } from '../http/respond';
import { exactNumber } from '../openapi/exact-number';
import { idField, nullableText, operationStatusField, timestampField } from '../schemas/response-fields.schema';
import type { ApiContext } from '../state';
import type { Route } from './route';

const WITHDRAWAL_ID = '9d5f2c1a-6b8e-4f3d-a2c7-1e0b9a8d7c6f';

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
    pesel: nullableText('Polish national id number, if any.', null),
    birthCountry: nullableText('Two-letter country code of birth, if known.', 'DE'),
    birthDate: z.iso
      .date()
      .nullable()
      .meta({ description: 'Date of birth (YYYY-MM-DD), if known.', examples: ['1990-04-01'] }),
  })
  .meta({ id: 'WithdrawalUser' });

const withdrawalDetailsSchema = z
  .strictObject({
    id: idField('The withdrawal id.', WITHDRAWAL_ID),
    amount: exactNumber('What the destination receives.', ['0.015']),
    fee: exactNumber('The network fee, debited on top of the amount.', ['0.00005']),
    destination: text('The destination wallet address.', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'),
    status: operationStatusField,
    transactionHash: text('The blockchain transaction hash; empty until the withdrawal is broadcast.', ''),
    currency: z.strictObject({
      network: z
        .string()
        .meta({ description: 'The network for usdc (ethereum or polygon); empty for every other currency.', examples: [''] }),
      name: z
        .enum(CRYPTO_CURRENCIES.map((slug) => slug.toUpperCase()))
        .meta({ description: 'The currency, upper case.', examples: ['BTC'] }),
    }),
    createdAt: timestampField('When the withdrawal was made.', '2026-11-21T16:12:27.786Z'),
    user: withdrawalUserSchema
      .nullable()
      .meta({ description: "The user it was made for (POST /v1/crypto-withdrawal); null for the partner's own." }),
  })
  .meta({ id: 'WithdrawalDetails' });

/** GET /v1/crypto-withdrawal/details/:withdrawalId: unknown and foreign ids are both 404 P421. */
export const withdrawalDetailsRoute: Route = {
  method: 'get',
  path: '/v1/crypto-withdrawal/details/:withdrawalId',
  authenticated: true,
  docs: {
    operationId: 'getWithdrawalDetails',
    tag: 'Crypto withdrawals',
    summary: 'One crypto withdrawal',
    description: "A withdrawal of the partner's, by id; `user` is set for one made on behalf of a user.",
    errors: ['withdrawal-not-found'],
  },
  request: {
    // Any text: what names no withdrawal of this partner's is not found, not malformed.
    params: z.object({
      withdrawalId: z.string().meta({
        description: "The withdrawalId a withdrawal POST returned. Anything that names no withdrawal of this partner's is 404 P421.",
        examples: [WITHDRAWAL_ID],
      }),
    }),
  },
  response: {
    status: 200,
    description: 'The withdrawal.',
    body: withdrawalDetailsSchema,
    examples: {
      forUser: {
        summary: 'Settled, on behalf of a user',
        value: {
          id: WITHDRAWAL_ID,
          amount: jsonNumber('0.015'),
          fee: jsonNumber('0.00005'),
          destination: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
          status: 'SUCCESSFUL',
          transactionHash: '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b',
          currency: { network: '', name: 'BTC' },
          createdAt: '2026-11-21T16:12:27.786Z',
          user: {
            externalUserId: 'user-4711',
            email: 'jane.doe@example.org',
            firstName: 'Jane',
            lastName: 'Doe',
            address: 'Hauptstrasse 1',
            city: 'Berlin',
            country: 'DE',
            documentType: 'PASSPORT',
            documentNumber: 'C01X00T47',
            pesel: null,
            birthCountry: 'DE',
            birthDate: '1990-04-01',
          },
        },
      },
      partnersOwn: {
        summary: "The partner's own, on polygon, not yet broadcast",
        value: {
          id: WITHDRAWAL_ID,
          amount: jsonNumber('250.000001'),
          fee: jsonNumber('0.1'),
          destination: '0x52908400098527886E0F7030069857D2E4169EE7',
          status: 'IN_PROGRESS',
          transactionHash: '',
          currency: { network: 'polygon', name: 'USDC' },
          createdAt: '2026-11-21T16:12:27.786Z',
          user: null,
        },
      },
    },
  },
  handler: withdrawalDetailsHandler,
};

const withdrawalId = z.uuid();

function withdrawalDetailsHandler(deps: ApiDependencies) {
  return async (ctx: ApiContext): Promise<void> => {
    const id = withdrawalId.safeParse(ctx.params.withdrawalId);
    const row = id.success ? await findWithdrawalDetails(deps.readPool, ctx.state.partnerId, id.data) : undefined;
    if (!row) throw new DomainError('withdrawal-not-found', 'no such withdrawal');
    respond(ctx, withdrawalDetailsRoute.response.status, {
      id: row.id,
      amount: jsonNumber(new Decimal(row.amount)),
      fee: jsonNumber(new Decimal(row.fee)),
      destination: row.destination,
      status: row.status,
      transactionHash: row.transaction_hash ?? '',
      currency: {
        network: CURRENCY_NETWORKS[row.currency as CryptoCurrency].length > 1 ? row.network : '',
        name: row.currency.toUpperCase(),
      },
      createdAt: row.created_at.toISOString(),
      user: userOf(row),
    });
  };
}

function userOf(row: WithdrawalDetailsRow): Record<string, unknown> | null {
  if (row.external_user_id === null) return null;
  return {
    externalUserId: row.external_user_id,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    address: row.address,
    city: row.city,
    country: row.country,
    documentType: row.document_type,
    documentNumber: row.document_number,
    pesel: row.pesel,
    birthCountry: row.birth_country,
    birthDate: row.birth_date,
  };
}
