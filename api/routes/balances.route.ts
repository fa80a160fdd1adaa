import { z } from 'zod';
import { CRYPTO_CURRENCIES, FIAT_CURRENCIES, isCurrency } from '../../core/currencies';
import { NETWORKS } from '../../core/networks';
import type { EurRates } from '../../core/rates';
import { findAccountsOfPartners } from '../../db/queries/account.queries';
import type { PartnerAccountRow } from '../../db/queries/account.queries';
import { coalescedLookup } from '../../db/coalesced-lookup';
import { findNetworkConfigs } from '../../db/queries/network-config.queries';
import type { NetworkConfigRow } from '../../db/queries/network-config.queries';
import type { ApiDependencies } from '../dependencies';
import { jsonNumber } from '../http/exact-json';
import { respond } from '../http/respond';
import { exactNumber } from '../openapi/exact-number';
import { idField } from '../schemas/response-fields.schema';
import type { ApiContext } from '../state';
import type { Route } from './route';

const networkConfigSchema = z
  .strictObject({
    mainnet: z.boolean().meta({ description: 'Whether the network is a mainnet (false: a testnet or a regtest).' }),
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

const fiatBalanceSchema = z
  .strictObject({
    id: idField('The balance id.', '0f8fad5b-d9cb-469f-a165-70867728950e'),
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

const cryptoBalanceSchema = z
  .strictObject({
    id: idField('The balance id.', '7c9e6679-7425-40de-944b-e07fc1f90ae7'),
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

/** GET /v1/partner/balances: available amounts (posted − reserved), EUR rates and network config. */
export const balancesRoute: Route = {
  method: 'get',
  path: '/v1/partner/balances',
  authenticated: true,
  docs: {
    operationId: 'getBalances',
    tag: 'Partner',
    summary: 'All balances of the partner',
    description:
      'Fiat balances with their IBAN and status, crypto balances with their wallet and per-network fees and minimums. `amount` is the available balance: posted minus held, so a reservation shows at once.',
    errors: [],
  },
  request: {},
  response: {
    status: 200,
    description: 'The balances.',
    body: z
      .strictObject({
        fiatBalances: z.array(fiatBalanceSchema),
        cryptoBalances: z.array(cryptoBalanceSchema),
      })
      .meta({ id: 'Balances' }),
    examples: {
      balances: {
        summary: 'One fiat and one crypto balance',
        value: {
          fiatBalances: [
            {
              id: '0f8fad5b-d9cb-469f-a165-70867728950e',
              amount: '1250.5',
              name: 'eur',
              rate: jsonNumber('1'),
              iban: 'DE89370400440532013000',
              status: 'ACTIVE',
            },
          ],
          cryptoBalances: [
            {
              id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
              amount: '0.000000000000000001',
              name: 'eth',
              wallet: '0x52908400098527886E0F7030069857D2E4169EE7',
              rate: jsonNumber('2834.12'),
              networkConfig: {
                ethereum: {
                  mainnet: true,
                  name: 'ethereum',
                  withdrawal: { feeWithdrawal: jsonNumber('0.0005'), minWithdrawal: jsonNumber('0.001') },
                  deposit: { minDeposit: jsonNumber('0.000000000000000001') },
                },
              },
            },
          ],
        },
      },
    },
  },
  handler: balancesHandler,
};

/** Each crypto currency's `networkConfig` object, keyed by network. */
type NetworkConfigs = ReadonlyMap<string, Record<string, unknown>>;

function balancesHandler(deps: ApiDependencies) {
  // network_config changes only by migration, with a new release: read once on first use (a failure: on the next request).
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
    respond(ctx, balancesRoute.response.status, balancesBody(accounts, rates, configs));
  };
}

function networkConfigsOf(rows: readonly NetworkConfigRow[]): NetworkConfigs {
  const networksByCurrency = new Map<string, Record<string, unknown>>();
  for (const row of rows) {
    const networks = networksByCurrency.get(row.currency) ?? {};
    networks[row.network] = {
      mainnet: row.chain === 'mainnet',
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
