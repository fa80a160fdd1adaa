import { z } from 'zod';
import { withdrawCrypto } from '../../operations/crypto-withdrawal.operation';
import type { ApiDependencies } from '../dependencies';
import { jsonNumber } from '../http/exact-json';
import { idempotentPost } from '../idempotency/idempotent-post';
import type { partnerCryptoWithdrawalBodySchema } from '../schemas/crypto-withdrawal.schema';
import { idField } from '../schemas/response-fields.schema';
import type { RouteResponse } from './route';

/** What the two crypto-withdrawal routes share (the partner's own, and on behalf of a user). */

const WITHDRAWAL_ID = '9d5f2c1a-6b8e-4f3d-a2c7-1e0b9a8d7c6f';

/** Both answer this: a field added here does not compile until the handler writes it. */
export const withdrawalCreated = {
  status: 200,
  description: 'Amount and fee are held; the withdrawal is under way.',
  body: z
    .strictObject({
      withdrawalId: idField('The withdrawal id, for GET /v1/crypto-withdrawal/details/{withdrawalId}.', WITHDRAWAL_ID),
    })
    .meta({ id: 'WithdrawalCreated' }),
  examples: { created: { summary: 'Under way', value: { withdrawalId: WITHDRAWAL_ID } } },
} satisfies RouteResponse;

export const WITHDRAWAL_DESCRIPTION =
  'Validates the whole body (currency and network: usdc takes ethereum or polygon, every other currency its only network or ' +
  'none; amount scale and minimum, address format for the chain) and answers once ' +
  'amount plus network fee are held. The withdrawal then goes on: travel-rule check (above EUR 1000 to a NON_CUSTODIAL or ' +
  'OTHER wallet it waits in IN_PROGRESS_TR_DATA for data), broadcast, confirmation, settlement. Follow it with the details ' +
  'route, the history, or the crypto_withdrawal.status_changed webhook. Every invalid body is 400 P410. When operators require it ' +
  "for the partner (its allowlist policy), the destination must be an ACTIVE entry of the partner's withdrawal-address book for " +
  'this currency and network: else 400 P441, and nothing is held.';

/** Example bodies of the partner's own withdrawals; the user's route adds sourceExternalUserId. */
export const WITHDRAWAL_EXAMPLE_BODIES = {
  btc: {
    currency: 'btc',
    amount: jsonNumber('0.015'),
    walletAddress: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
    name: 'Jane Doe',
    walletType: 'NON_CUSTODIAL',
    receiverType: 'NATURAL',
  },
  usdcOnPolygon: {
    currency: 'usdc',
    amount: jsonNumber('250.000001'),
    walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
    memo: 'invoice 2026-118',
    network: 'POLYGON',
    name: 'Acme GmbH',
    walletType: 'CUSTODIAL',
    receiverType: 'LEGAL',
  },
};

/** Both routes' handler, each with its own body schema (of one type); any invalid body is P410 (spec). */
export const withdrawalHandler = (schema: typeof partnerCryptoWithdrawalBodySchema) => (deps: ApiDependencies) =>
  idempotentPost(deps, {
    schema,
    invalidKind: 'invalid-currency',
    response: withdrawalCreated,
    perform: async (body, { partnerId, resourceId }) => {
      const { withdrawalId } = await withdrawCrypto(deps, { ...body, partnerId, withdrawalId: resourceId });
      return { withdrawalId };
    },
  });
