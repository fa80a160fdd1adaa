import { isCurrency } from '../../core/currencies';
import type { EurRates } from '../../core/rates';
import { findAccountsOfPartners } from '../../db/queries/account.queries';
import type { PartnerAccountRow } from '../../db/queries/account.queries';
import { coalescedLookup } from '../../db/queries/coalesced-lookup';
import { findNetworkConfigs } from '../../db/queries/network-config.queries';
import type { NetworkConfigRow } from '../../db/queries/network-config.queries';
import type { ApiDependencies } from '../dependencies';
import { jsonNumber } from '../http/exact-json';
import { respond } from '../http/respond';
import type { ApiContext } from '../state';

/** Each crypto currency's `networkConfig` object, keyed by network (built once: the table changes only by migration). */
type NetworkConfigs = ReadonlyMap<string, Record<string, unknown>>;

/** GET /v1/partner/balances: available amounts (posted − reserved), EUR rates and network config. */
export function balancesRoute(deps: ApiDependencies) {
  // network_config changes only by migration, which comes with a new release (and restart):
  // read once, on first use; a failed read is retried by the next request.
  let networkConfigs: Promise<NetworkConfigs> | undefined;
  const loadNetworkConfigs = () =>
    (networkConfigs ??= findNetworkConfigs(deps.readPool)
      .then(networkConfigsOf)
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
    respond(ctx, 200, balancesBody(accounts, rates, configs));
  };
}

function networkConfigsOf(rows: readonly NetworkConfigRow[]): NetworkConfigs {
  const networksByCurrency = new Map<string, Record<string, unknown>>();
  for (const row of rows) {
    const networks = networksByCurrency.get(row.currency) ?? {};
    networks[row.network] = {
      mainnet: row.mainnet,
      name: row.network,
      withdrawal: { feeWithdrawal: jsonNumber(row.fee_withdrawal), minWithdrawal: jsonNumber(row.min_withdrawal) },
      deposit: { minDeposit: jsonNumber(row.min_deposit) },
    };
    networksByCurrency.set(row.currency, networks);
  }
  return networksByCurrency;
}

/** Fiat balances with IBAN and status, crypto ones with wallet and network config. */
function balancesBody(accounts: readonly PartnerAccountRow[], rates: EurRates, networkConfigs: NetworkConfigs) {
  const fiatBalances: object[] = [];
  const cryptoBalances: object[] = [];
  for (const account of accounts) {
    if (!isCurrency(account.currency)) continue;
    const { id, currency: name } = account;
    const amount = account.available_amount;
    const rate = jsonNumber(rates[account.currency]);
    if (account.iban !== null) {
      fiatBalances.push({ id, amount, name, rate, iban: account.iban, status: account.fiat_status });
    } else {
      const networkConfig = networkConfigs.get(account.currency) ?? {};
      cryptoBalances.push({ id, amount, name, wallet: account.wallet_address, rate, networkConfig });
    }
  }
  return { fiatBalances, cryptoBalances };
}
