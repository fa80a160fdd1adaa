import { isCurrency } from '../../core/currencies';
import type { EurRates } from '../../core/rates';
import type { PartnerAccountRow } from '../../db/queries/account.queries';
import type { NetworkConfigRow } from '../../db/queries/network-config.queries';
import { jsonNumberText, jsonStringText } from '../http/json-text';

/** Each crypto currency's `networkConfig` object as JSON text, keyed by network (written once: the table changes only by migration). */
export type NetworkConfigJson = ReadonlyMap<string, string>;

export function networkConfigJson(rows: readonly NetworkConfigRow[]): NetworkConfigJson {
  const networksByCurrency = new Map<string, string[]>();
  for (const row of rows) {
    const network =
      `${jsonStringText(row.network)}:{"mainnet":${row.mainnet},"name":${jsonStringText(row.network)},` +
      `"withdrawal":{"feeWithdrawal":${jsonNumberText(row.fee_withdrawal)},"minWithdrawal":${jsonNumberText(row.min_withdrawal)}},` +
      `"deposit":{"minDeposit":${jsonNumberText(row.min_deposit)}}}`;
    const networks = networksByCurrency.get(row.currency) ?? [];
    networks.push(network);
    networksByCurrency.set(row.currency, networks);
  }
  return new Map([...networksByCurrency].map(([currency, networks]) => [currency, `{${networks.join(',')}}`]));
}

/** GET /v1/partner/balances' body: fiat balances with IBAN and status, crypto ones with wallet and network config. */
export function balancesJson(accounts: readonly PartnerAccountRow[], rates: EurRates, networkConfigs: NetworkConfigJson): string {
  const fiatBalances: string[] = [];
  const cryptoBalances: string[] = [];
  for (const account of accounts) {
    if (!isCurrency(account.currency)) continue;
    const head = `{"id":${jsonStringText(account.id)},"amount":${jsonStringText(account.available_amount)},"name":${jsonStringText(account.currency)}`;
    const rate = jsonNumberText(rates[account.currency]);
    if (account.iban !== null) {
      fiatBalances.push(`${head},"rate":${rate},"iban":${jsonStringText(account.iban)},"status":${jsonStringText(account.fiat_status)}}`);
    } else {
      const networkConfig = networkConfigs.get(account.currency) ?? '{}';
      cryptoBalances.push(`${head},"wallet":${jsonStringText(account.wallet_address)},"rate":${rate},"networkConfig":${networkConfig}}`);
    }
  }
  return `{"fiatBalances":[${fiatBalances.join(',')}],"cryptoBalances":[${cryptoBalances.join(',')}]}`;
}
