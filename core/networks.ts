import { CRYPTO_CURRENCIES } from './currencies';
import type { CryptoCurrency } from './currencies';

/**
 * One declaration per network and the currencies it moves: every other list of networks, chain families, native coins,
 * tokens, address formats and deposit keys is derived from it. The database's lists (CHECKs, system accounts, the
 * network_config rows) are checked against it (test/integration/network-declaration.test.ts). Adding a network:
 * docs/architecture.md, "Adding a network".
 */
export type ChainFamily = 'evm' | 'utxo';

/**
 * How a network's addresses are written: EIP-55 hex; native segwit (bech32, P2WPKH for deposits, legacy base58 accepted
 * as destinations); legacy base58check only (P2PKH deposits).
 */
export type AddressFormat = 'eip55' | 'segwit' | 'base58';

export interface AssetDefaults {
  /** The seeded network_config row (operators change it there): the fee a withdrawal pays, and the minimums. */
  withdrawalFee: string;
  minimumWithdrawal: string;
  minimumDeposit: string;
}

export interface NetworkDeclaration {
  family: ChainFamily;
  /** The coin it pays its fees in, sent as a plain value transfer; every other currency of `assets` is a token on it (EVM: ERC-20, its contract set per deployment). */
  nativeCurrency: CryptoCurrency;
  addressFormat: AddressFormat;
  /**
   * Deposit keys: the BIP32 account m/purpose'/coin'/0' (BIP84 for segwit, BIP44 otherwise); testnets and regtest take coin
   * type 1 (SLIP-44, `testnetCoin`), except EVM, whose addresses are one on every network (one key family, `evm`).
   */
  depositKeys: { family: 'evm' | 'btc' | 'ltc' | 'doge'; purpose: 44 | 84; mainnetCoin: number; testnetCoin: number };
  /**
   * Its nodes name a finalized block (`eth_getBlockByNumber('finalized')`), past which no reorganisation goes: deposits are
   * credited at their confirmations and never above it. Without one, the confirmations alone decide.
   */
  finalizedBlock: boolean;
  /** The currencies it moves, each with the defaults its network_config row is seeded with. */
  assets: Readonly<Partial<Record<CryptoCurrency, AssetDefaults>>>;
}

const asset = (withdrawalFee: string, minimumWithdrawal: string, minimumDeposit: string): AssetDefaults => ({
  withdrawalFee,
  minimumWithdrawal,
  minimumDeposit,
});

const EVM_KEYS = { family: 'evm', purpose: 44, mainnetCoin: 60, testnetCoin: 60 } as const;

export const NETWORK_DECLARATIONS = {
  bitcoin: {
    family: 'utxo',
    nativeCurrency: 'btc',
    addressFormat: 'segwit',
    depositKeys: { family: 'btc', purpose: 84, mainnetCoin: 0, testnetCoin: 1 },
    finalizedBlock: false,
    assets: { btc: asset('0.00005', '0.0001', '0.00005') },
  },
  dogecoin: {
    family: 'utxo',
    nativeCurrency: 'doge',
    addressFormat: 'base58',
    depositKeys: { family: 'doge', purpose: 44, mainnetCoin: 3, testnetCoin: 1 },
    finalizedBlock: false,
    assets: { doge: asset('2', '10', '5') },
  },
  ethereum: {
    family: 'evm',
    nativeCurrency: 'eth',
    addressFormat: 'eip55',
    depositKeys: EVM_KEYS,
    finalizedBlock: true,
    assets: { eth: asset('0.0005', '0.001', '0.0005'), usdc: asset('3', '10', '5') },
  },
  litecoin: {
    family: 'utxo',
    nativeCurrency: 'ltc',
    addressFormat: 'segwit',
    depositKeys: { family: 'ltc', purpose: 84, mainnetCoin: 2, testnetCoin: 1 },
    finalizedBlock: false,
    assets: { ltc: asset('0.0001', '0.001', '0.0005') },
  },
  polygon: {
    family: 'evm',
    nativeCurrency: 'pol',
    addressFormat: 'eip55',
    depositKeys: EVM_KEYS,
    finalizedBlock: true,
    assets: { pol: asset('0.1', '1', '0.5'), usdc: asset('0.1', '1', '1') },
  },
} as const satisfies Record<string, NetworkDeclaration>;

export type Network = keyof typeof NETWORK_DECLARATIONS;
export const NETWORKS = Object.keys(NETWORK_DECLARATIONS) as Network[];

type FamilyOf<F extends ChainFamily> = { [N in Network]: (typeof NETWORK_DECLARATIONS)[N]['family'] extends F ? N : never }[Network];
export type EvmNetwork = FamilyOf<'evm'>;
export type UtxoNetwork = FamilyOf<'utxo'>;

export function isEvmNetwork(network: Network): network is EvmNetwork {
  return NETWORK_DECLARATIONS[network].family === 'evm';
}

export const EVM_NETWORKS = NETWORKS.filter(isEvmNetwork);
export const UTXO_NETWORKS = NETWORKS.filter((network): network is UtxoNetwork => !isEvmNetwork(network));

/** The currencies the networks `N` move, as a type. */
export type CurrencyOf<N extends Network> = N extends Network ? keyof (typeof NETWORK_DECLARATIONS)[N]['assets'] & CryptoCurrency : never;
export type EvmCurrency = CurrencyOf<EvmNetwork>;

export type DepositKeyFamily = NetworkDeclaration['depositKeys']['family'];

/** The first network declared with a deposit key family: its account path and coin name the family (ethereum for `evm`). */
export function networkOfKeyFamily(family: DepositKeyFamily): Network {
  const network = NETWORKS.find((each) => NETWORK_DECLARATIONS[each].depositKeys.family === family);
  if (network === undefined) throw new Error(`no network declares the deposit key family ${family}`);
  return network;
}

/** The currencies a network moves: its coin first, then its tokens. */
export function currenciesOf(network: Network): readonly CryptoCurrency[] {
  const { nativeCurrency, assets } = NETWORK_DECLARATIONS[network] as NetworkDeclaration;
  return [nativeCurrency, ...(Object.keys(assets) as CryptoCurrency[]).filter((currency) => currency !== nativeCurrency)];
}

/** A token on `network` (not its coin), or false. */
export function isToken(currency: CryptoCurrency, network: Network): boolean {
  return currency !== NETWORK_DECLARATIONS[network].nativeCurrency && currenciesOf(network).includes(currency);
}

/** Every currency/network pair the service moves, in the declaration's order. */
export const ASSETS: ReadonlyArray<{ currency: CryptoCurrency; network: Network }> = NETWORKS.flatMap((network) =>
  currenciesOf(network).map((currency) => ({ currency, network })),
);

/**
 * Networks per crypto currency, in the declaration's order; the first is the default when a request names none (usdc:
 * ethereum, which test/unit/networks.test.ts holds, so a network declared before it cannot move requests silently).
 */
export const CURRENCY_NETWORKS: Readonly<Record<CryptoCurrency, readonly Network[]>> = Object.fromEntries(
  CRYPTO_CURRENCIES.map((currency) => [currency, ASSETS.filter((pair) => pair.currency === currency).map((pair) => pair.network)]),
) as Record<CryptoCurrency, Network[]>;

export function defaultNetwork(currency: CryptoCurrency): Network {
  const network = CURRENCY_NETWORKS[currency][0];
  if (network === undefined) throw new Error(`no network configured for ${currency}`);
  return network;
}

/** The currencies the EVM networks move (one deposit key for all of them). */
export const EVM_CURRENCIES = [...new Set(EVM_NETWORKS.flatMap((network) => currenciesOf(network)))] as EvmCurrency[];
