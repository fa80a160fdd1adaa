import { findAccountsOfPartners } from '../../db/queries/account.queries';
import { coalescedLookup } from '../../db/queries/coalesced-lookup';
import { findNetworkConfigs } from '../../db/queries/network-config.queries';
import type { ApiDependencies } from '../dependencies';
import { respondJsonText } from '../http/json-text';
import { balancesJson, networkConfigJson } from '../responses/balances.response';
import type { NetworkConfigJson } from '../responses/balances.response';
import type { ApiContext } from '../state';

/** GET /v1/partner/balances: available amounts (posted − reserved), EUR rates and network config. */
export function balancesRoute(deps: ApiDependencies) {
  // network_config changes only by migration, which comes with a new release (and restart):
  // read once, on first use; a failed read is retried by the next request.
  let networkConfigs: Promise<NetworkConfigJson> | undefined;
  const loadNetworkConfigs = () =>
    (networkConfigs ??= findNetworkConfigs(deps.readPool)
      .then(networkConfigJson)
      .catch((error: unknown) => {
        networkConfigs = undefined;
        throw error;
      }));

  // Requests that arrive together share one query (at most this many partners in it).
  const accountsOf = coalescedLookup((partnerIds: readonly string[]) => findAccountsOfPartners(deps.readPool, partnerIds), {
    maxKeysPerQuery: 100,
  });

  return async (ctx: ApiContext): Promise<void> => {
    const [accounts, configs, rates] = await Promise.all([
      accountsOf(ctx.state.partnerId).then((rows) => rows ?? []),
      loadNetworkConfigs(),
      deps.rateSource.currentEurRates(),
    ]);
    respondJsonText(ctx, 200, balancesJson(accounts, rates, configs));
  };
}
