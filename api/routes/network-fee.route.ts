import { z } from 'zod';
import { withdrawalFee } from '../../operations/crypto-withdrawal.operation';
import type { ApiDependencies } from '../dependencies';
import { jsonNumber } from '../http/exact-json';
import { respond } from '../http/respond';
import { exactNumber } from '../openapi/exact-number';
import { networkFeeQuerySchema } from '../schemas/network-fee.schema';
import { parseOrThrow } from '../schemas/validation';
import type { ApiContext } from '../state';
import type { Route } from './route';

/** GET /v1/crypto-withdrawal/get-network-fee?currency=…&network=…: the fee a withdrawal pays. */
export const networkFeeRoute: Route = {
  method: 'get',
  path: '/v1/crypto-withdrawal/get-network-fee',
  authenticated: true,
  docs: {
    operationId: 'getNetworkFee',
    tag: 'Crypto withdrawals',
    summary: 'The network fee of a withdrawal',
    description:
      "What a withdrawal of the currency (on the network) pays on top of its amount. `network` is usdc's choice (ethereum or polygon); any other currency takes its only network or none. Any invalid query, a network the currency does not move on included, is 400 P410.",
    errors: ['invalid-currency'],
  },
  request: { query: networkFeeQuerySchema },
  response: {
    status: 200,
    description: 'The fee, in the currency.',
    body: z
      .strictObject({ networkFee: exactNumber('The fee a withdrawal pays, in the currency, on top of its amount.', ['0.00005']) })
      .meta({ id: 'NetworkFee' }),
    examples: {
      btc: { summary: 'btc', value: { networkFee: jsonNumber('0.00005') } },
      usdcOnPolygon: { summary: 'usdc on polygon', value: { networkFee: jsonNumber('0.1') } },
    },
  },
  handler: networkFeeHandler,
};

function networkFeeHandler(deps: ApiDependencies) {
  return async (ctx: ApiContext): Promise<void> => {
    const query = parseOrThrow(networkFeeQuerySchema, ctx.query, 'invalid-currency');
    const fee = await withdrawalFee(deps, query.currency, query.network);
    respond(ctx, networkFeeRoute.response.status, { networkFee: jsonNumber(fee) });
  };
}
