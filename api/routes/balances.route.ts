import { CURRENCY_SCALE, isCurrency } from '../../core/currencies';
import { Decimal } from '../../core/money';
import { findPartnerAccounts } from '../../db/queries/account.queries';
import { findNetworkConfigs } from '../../db/queries/network-config.queries';
import type { NetworkConfigRow } from '../../db/queries/network-config.queries';
import type { ApiDependencies } from '../dependencies';
import { jsonNumber } from '../http/exact-json';
import { respondJson } from '../http/respond';
import type { ApiContext } from '../state';

/** GET /v1/partner/balances: available amounts (posted − reserved), EUR rates and network config. */
export function balancesRoute(deps: ApiDependencies) {
  return async (ctx: ApiContext): Promise<void> => {
    const partnerId = ctx.state.partnerId;
    const [accounts, networkConfigs, rates] = await Promise.all([
      findPartnerAccounts(deps.readPool, partnerId),
      findNetworkConfigs(deps.readPool),
      deps.rateSource.currentEurRates(),
    ]);
    const fiatBalances = [];
    const cryptoBalances = [];
    for (const account of accounts) {
      if (!isCurrency(account.currency)) continue;
      const amount = new Decimal(account.available_amount).toFixed(CURRENCY_SCALE[account.currency]);
      const rate = jsonNumber(rates[account.currency]);
      if (account.iban !== null) {
        fiatBalances.push({ id: account.id, amount, name: account.currency, rate, iban: account.iban, status: account.fiat_status });
      } else {
        cryptoBalances.push({
          id: account.id,
          amount,
          name: account.currency,
          wallet: account.wallet_address,
          rate,
          networkConfig: networkConfigFor(account.currency, networkConfigs),
        });
      }
    }
    respondJson(ctx, 200, { fiatBalances, cryptoBalances });
  };
}

function networkConfigFor(currency: string, rows: readonly NetworkConfigRow[]): Record<string, unknown> {
  return Object.fromEntries(
    rows
      .filter((row) => row.currency === currency)
      .map((row) => [
        row.network,
        {
          mainnet: row.mainnet,
          name: row.network,
          withdrawal: {
            feeWithdrawal: jsonNumber(new Decimal(row.fee_withdrawal)),
            minWithdrawal: jsonNumber(new Decimal(row.min_withdrawal)),
          },
          deposit: { minDeposit: jsonNumber(new Decimal(row.min_deposit)) },
        },
      ]),
  );
}
