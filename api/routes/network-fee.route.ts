import { assertInvariant } from '../../core/errors';
import { Decimal } from '../../core/money';
import { findNetworkConfig } from '../../db/queries/network-config.queries';
import type { ApiDependencies } from '../dependencies';
import { jsonNumber } from '../http/exact-json';
import { respond } from '../http/respond';
import { networkFeeQuerySchema } from '../schemas/network-fee.schema';
import { parseOrThrow } from '../schemas/validation';
import type { ApiContext } from '../state';

/** GET /v1/crypto-withdrawal/get-network-fee?currency=…&network=…: the fee a withdrawal pays. */
export function networkFeeRoute(deps: ApiDependencies) {
  return async (ctx: ApiContext): Promise<void> => {
    const query = parseOrThrow(networkFeeQuerySchema, ctx.query, 'invalid-currency');
    const config = await findNetworkConfig(deps.readPool, query.currency, query.network);
    assertInvariant(config, `network_config has ${query.currency}/${query.network}`);
    respond(ctx, 200, { networkFee: jsonNumber(new Decimal(config.fee_withdrawal)) });
  };
}
