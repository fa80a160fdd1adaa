import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiParameters, ZodOpenApiResponsesObject } from 'zod-openapi';
import { jsonNumber as exact } from '../http/exact-json';
import type { ApiErrorKind } from '../http/error-mapping';
import { partnerCryptoWithdrawalBodySchema, userCryptoWithdrawalBodySchema } from '../schemas/crypto-withdrawal.schema';
import { exchangeBodySchema } from '../schemas/exchange.schema';
import { networkFeeQuerySchema } from '../schemas/network-fee.schema';
import { sepaTransferBodySchema } from '../schemas/sepa-transfer.schema';
import { transactionHistoryParamsSchema, transactionHistoryQuerySchema } from '../schemas/transaction-history.schema';
import { EVERY_POST_ERRORS, EVERY_ROUTE_ERRORS, errorResponses } from './error-responses';
import { idempotencyKeyHeader, idempotentReplayedHeader, linkHeader, requestIdHeader, responseHeaders } from './headers';
import {
  balancesBodySchema,
  exchangeCreatedBodySchema,
  networkFeeBodySchema,
  rateLockBodySchema,
  transactionHistoryBodySchema,
  transferCreatedBodySchema,
  withdrawalCreatedBodySchema,
  withdrawalDetailsBodySchema,
} from './response-bodies.schema';

/**
 * Every route of the spec, as the document describes it: the one list the OpenAPI document is
 * made of (and the e2e test compares with what the router serves).
 */
export interface DocumentedRoute {
  method: 'get' | 'post';
  /** OpenAPI form: `{name}` for a path parameter. */
  path: string;
  operation: ZodOpenApiOperationObject;
}

type Examples = Record<string, { summary: string; value: unknown }>;

interface OperationDoc {
  operationId: string;
  tag: 'Partner' | 'Crypto withdrawals';
  summary: string;
  description: string;
  requestParams?: ZodOpenApiParameters;
  body?: { schema: z.ZodType; examples: Examples };
  success: { status: 200 | 201; description: string; schema: z.ZodType; examples: Examples; headers?: Record<string, z.ZodType> };
  /** The route's own errors; those of every route (and of every POST) are added. */
  errors: readonly ApiErrorKind[];
}

const LOCK_ID = '5b0e1c9e-8d55-4a8f-9a51-1f3c2f0f4b7e';
const WITHDRAWAL_ID = '9d5f2c1a-6b8e-4f3d-a2c7-1e0b9a8d7c6f';
const BTC_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const EVM_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

export function documentedRoutes(currentYear: number): DocumentedRoute[] {
  return [
    { method: 'get', path: '/v1/partner/balances', operation: operation(balances) },
    { method: 'get', path: '/v1/partner/transaction-history/{month}/{year}', operation: operation(transactionHistory(currentYear)) },
    { method: 'get', path: '/v1/partner/get-lock', operation: operation(rateLock) },
    { method: 'post', path: '/v1/partner/exchange', operation: operation(exchange) },
    { method: 'post', path: '/v1/partner/crypto-withdrawal', operation: operation(partnerCryptoWithdrawal) },
    { method: 'post', path: '/v1/partner/sepa-transfer', operation: operation(sepaTransfer) },
    { method: 'get', path: '/v1/crypto-withdrawal/get-network-fee', operation: operation(networkFee) },
    { method: 'post', path: '/v1/crypto-withdrawal', operation: operation(userCryptoWithdrawal) },
    { method: 'get', path: '/v1/crypto-withdrawal/details/{withdrawalId}', operation: operation(withdrawalDetails) },
  ];
}

function operation(doc: OperationDoc): ZodOpenApiOperationObject {
  const post = doc.body !== undefined;
  const requestParams: ZodOpenApiParameters = {
    ...doc.requestParams,
    header: z.object({ 'X-Request-Id': requestIdHeader, ...(post ? { 'Idempotency-Key': idempotencyKeyHeader } : {}) }),
  };
  const successHeaders = { ...doc.success.headers, ...(post ? { 'Idempotent-Replayed': idempotentReplayedHeader.optional() } : {}) };
  const responses: ZodOpenApiResponsesObject = {
    [String(doc.success.status)]: {
      description: doc.success.description,
      headers: responseHeaders(doc.success.status, successHeaders),
      content: { 'application/json': { schema: doc.success.schema, examples: doc.success.examples } },
    },
    ...errorResponses([...doc.errors, ...(post ? EVERY_POST_ERRORS : []), ...EVERY_ROUTE_ERRORS]),
  };
  return {
    operationId: doc.operationId,
    tags: [doc.tag],
    summary: doc.summary,
    description: doc.description,
    requestParams,
    ...(doc.body ? { requestBody: { required: true, content: { 'application/json': doc.body } } } : {}),
    responses,
  };
}

const balances: OperationDoc = {
  operationId: 'getBalances',
  tag: 'Partner',
  summary: 'All balances of the partner',
  description:
    'Fiat balances with their IBAN and status, crypto balances with their wallet and per-network fees and minimums. `amount` is the available balance: posted minus held, so a reservation shows at once.',
  success: {
    status: 200,
    description: 'The balances.',
    schema: balancesBodySchema,
    examples: {
      balances: {
        summary: 'One fiat and one crypto balance',
        value: {
          fiatBalances: [
            {
              id: '0f8fad5b-d9cb-469f-a165-70867728950e',
              amount: '1250.5',
              name: 'eur',
              rate: exact('1'),
              iban: 'DE89370400440532013000',
              status: 'ACTIVE',
            },
          ],
          cryptoBalances: [
            {
              id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
              amount: '0.000000000000000001',
              name: 'eth',
              wallet: EVM_ADDRESS,
              rate: exact('2834.12'),
              networkConfig: {
                ethereum: {
                  mainnet: true,
                  name: 'ethereum',
                  withdrawal: { feeWithdrawal: exact('0.0005'), minWithdrawal: exact('0.001') },
                  deposit: { minDeposit: exact('0.000000000000000001') },
                },
              },
            },
          ],
        },
      },
    },
  },
  errors: [],
};

function transactionHistory(currentYear: number): OperationDoc {
  return {
    operationId: 'getTransactionHistory',
    tag: 'Partner',
    summary: 'The transactions of one month',
    description:
      'One UTC month, newest first, back to the month twelve months before the current one. Without `limit` the whole month ' +
      'comes as one array; with `limit` one page, and a `Link` header to the next while more follow.',
    requestParams: { path: transactionHistoryParamsSchema(currentYear), query: transactionHistoryQuerySchema },
    success: {
      status: 200,
      description: 'The entries (of the page, with `limit`).',
      schema: transactionHistoryBodySchema,
      headers: { Link: linkHeader.optional() },
      examples: {
        history: {
          summary: 'An exchange and a crypto withdrawal',
          value: [
            {
              id: '2b1a6c5e-3f0e-4c52-8f7d-0c8c2a9f4e11',
              createdAt: '2026-11-21T16:12:27.786Z',
              type: 'exchange',
              amount: exact('0.00162478'),
              currency: 'btc',
              amountFrom: exact('-100.5'),
              currencyFrom: 'eur',
              status: 'SUCCESSFUL',
            },
            {
              id: WITHDRAWAL_ID,
              createdAt: '2026-11-20T09:30:00.000Z',
              type: 'cryptoWithdrawal',
              amount: exact('-0.000000000000000001'),
              currency: 'eth',
              status: 'IN_PROGRESS',
            },
          ],
        },
      },
    },
    errors: ['invalid-month-or-year', 'invalid-date'],
  };
}

const rateLock: OperationDoc = {
  operationId: 'getRateLock',
  tag: 'Partner',
  summary: 'Lock the current exchange rates for 40 seconds',
  description:
    "Makes a single-use lock on the current EUR rates and the partner's fee, valid for exactly 40 seconds; use its id as the lockId of one exchange.",
  success: {
    status: 200,
    description: 'The lock.',
    schema: rateLockBodySchema,
    examples: {
      lock: {
        summary: 'A lock',
        value: {
          id: LOCK_ID,
          rates: {
            eur: exact('1'),
            btc: exact('61854.2'),
            doge: exact('0.1523'),
            eth: exact('2834.12'),
            ltc: exact('71.9'),
            pol: exact('0.4371'),
            usdc: exact('0.9213'),
          },
          feePercentage: exact('1'),
          createdAt: '2026-11-21T16:12:27.786Z',
          validUntil: '2026-11-21T16:13:07.786Z',
        },
      },
    },
  },
  errors: [],
};

const exchange: OperationDoc = {
  operationId: 'createExchange',
  tag: 'Partner',
  summary: 'Exchange between two currencies at a locked rate',
  description:
    'Debits `amount` of currencyFrom and credits `amount × rates[from] / rates[to] × (1 − feePercentage/100)` of currencyTo, ' +
    'rounded down to its decimals. Answers once the exchange is final.',
  body: {
    schema: exchangeBodySchema,
    examples: {
      eurToBtc: { summary: 'EUR to BTC', value: { amount: exact('100.50'), currencyFrom: 'eur', currencyTo: 'btc', lockId: LOCK_ID } },
      smallest: {
        summary: 'The smallest ETH amount',
        value: { amount: exact('0.000000000000000001'), currencyFrom: 'eth', currencyTo: 'pol', lockId: LOCK_ID },
      },
    },
  },
  success: {
    status: 201,
    description: 'The exchange is done.',
    schema: exchangeCreatedBodySchema,
    examples: { created: { summary: 'Done', value: { exchangeId: '2b1a6c5e-3f0e-4c52-8f7d-0c8c2a9f4e11' } } },
  },
  errors: ['invalid-exchange-lock', 'insufficient-funds'],
};

const withdrawalDescription =
  'Validates the whole body (currency and network, amount scale and minimum, address format for the chain) and answers once ' +
  'amount plus network fee are held. The withdrawal then goes on: travel-rule check (above EUR 1000 to a NON_CUSTODIAL or ' +
  'OTHER wallet it waits in IN_PROGRESS_TR_DATA for data), broadcast, confirmation, settlement. Follow it with the details ' +
  'route, the history, or the crypto_withdrawal.status_changed webhook. Every invalid body is 400 P410.';

const partnerWithdrawal = {
  currency: 'btc',
  amount: exact('0.015'),
  walletAddress: BTC_ADDRESS,
  name: 'Jane Doe',
  walletType: 'NON_CUSTODIAL',
  receiverType: 'NATURAL',
};
const usdcOnPolygon = {
  currency: 'usdc',
  amount: exact('250.000001'),
  walletAddress: EVM_ADDRESS,
  memo: 'invoice 2026-118',
  network: 'POLYGON',
  name: 'Acme GmbH',
  walletType: 'CUSTODIAL',
  receiverType: 'LEGAL',
};

const withdrawalCreated = {
  status: 200,
  description: 'Amount and fee are held; the withdrawal is under way.',
  schema: withdrawalCreatedBodySchema,
  examples: { created: { summary: 'Under way', value: { withdrawalId: WITHDRAWAL_ID } } },
} as const;

const partnerCryptoWithdrawal: OperationDoc = {
  operationId: 'createPartnerCryptoWithdrawal',
  tag: 'Partner',
  summary: "Withdraw crypto from the partner's balance",
  description: withdrawalDescription,
  body: {
    schema: partnerCryptoWithdrawalBodySchema,
    examples: {
      btc: { summary: 'BTC to a person', value: partnerWithdrawal },
      usdcOnPolygon: { summary: 'USDC on polygon to a company', value: usdcOnPolygon },
    },
  },
  success: withdrawalCreated,
  errors: ['invalid-currency', 'insufficient-funds'],
};

const userCryptoWithdrawal: OperationDoc = {
  operationId: 'createUserCryptoWithdrawal',
  tag: 'Crypto withdrawals',
  summary: 'Withdraw crypto on behalf of a user',
  description: `For one of the partner's registered users (the travel-rule originator), debited from the partner's balance. ${withdrawalDescription}`,
  body: {
    schema: userCryptoWithdrawalBodySchema,
    examples: {
      btc: { summary: 'BTC for user-4711', value: { ...partnerWithdrawal, sourceExternalUserId: 'user-4711' } },
      usdcOnPolygon: { summary: 'USDC on polygon for user-4711', value: { ...usdcOnPolygon, sourceExternalUserId: 'user-4711' } },
    },
  },
  success: withdrawalCreated,
  errors: ['invalid-user', 'invalid-currency', 'insufficient-funds'],
};

const sepaTransfer: OperationDoc = {
  operationId: 'createSepaTransfer',
  tag: 'Partner',
  summary: 'Send a SEPA credit transfer in EUR',
  description:
    "Holds the amount on the partner's active eur balance and answers; the payment is then submitted to the bank (ISO 20022 " +
    'pain.001) and settled or released on its answer. Follow it in the history or with the sepa_transfer.status_changed webhook.',
  body: {
    schema: sepaTransferBodySchema,
    examples: {
      person: {
        summary: 'To a person, amount as a string',
        value: {
          currency: 'eur',
          amount: '1250.00',
          receiverType: 'NATURAL',
          receiverFirstName: 'Jane',
          receiverLastName: 'Doe',
          destinationIban: 'DE89370400440532013000',
          transferTitle: 'Invoice 2026-118',
        },
      },
      company: {
        summary: 'To a company, amount as a number',
        value: {
          currency: 'eur',
          amount: exact('99.9'),
          receiverType: 'LEGAL',
          companyName: 'Acme SARL',
          destinationIban: 'FR1420041010050500013M02606',
          transferTitle: 'Order 77/2026',
        },
      },
    },
  },
  success: {
    status: 201,
    description: 'The amount is held; the transfer is under way.',
    schema: transferCreatedBodySchema,
    examples: { created: { summary: 'Under way', value: { transferId: '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f' } } },
  },
  errors: ['partner-not-found', 'insufficient-funds'],
};

const networkFee: OperationDoc = {
  operationId: 'getNetworkFee',
  tag: 'Crypto withdrawals',
  summary: 'The network fee of a withdrawal',
  description: 'What a withdrawal of the currency (on the network) pays on top of its amount. Any invalid query is 400 P410.',
  requestParams: { query: networkFeeQuerySchema },
  success: {
    status: 200,
    description: 'The fee, in the currency.',
    schema: networkFeeBodySchema,
    examples: {
      btc: { summary: 'btc', value: { networkFee: exact('0.00005') } },
      usdcOnPolygon: { summary: 'usdc on polygon', value: { networkFee: exact('0.1') } },
    },
  },
  errors: ['invalid-currency'],
};

const withdrawalDetails: OperationDoc = {
  operationId: 'getWithdrawalDetails',
  tag: 'Crypto withdrawals',
  summary: 'One crypto withdrawal',
  description: "A withdrawal of the partner's, by id; `user` is set for one made on behalf of a user.",
  requestParams: {
    path: z.object({
      withdrawalId: z.string().meta({
        description: "The withdrawalId a withdrawal POST returned. Anything that names no withdrawal of this partner's is 404 P421.",
        examples: [WITHDRAWAL_ID],
      }),
    }),
  },
  success: {
    status: 200,
    description: 'The withdrawal.',
    schema: withdrawalDetailsBodySchema,
    examples: {
      forUser: {
        summary: 'Settled, on behalf of a user',
        value: {
          id: WITHDRAWAL_ID,
          amount: exact('0.015'),
          fee: exact('0.00005'),
          destination: BTC_ADDRESS,
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
          amount: exact('250.000001'),
          fee: exact('0.1'),
          destination: EVM_ADDRESS,
          status: 'IN_PROGRESS',
          transactionHash: '',
          currency: { network: 'polygon', name: 'USDC' },
          createdAt: '2026-11-21T16:12:27.786Z',
          user: null,
        },
      },
    },
  },
  errors: ['withdrawal-not-found'],
};
