import { DEPOSIT_KEY_FAMILIES, parseAccountPublicKey } from '../core/deposit-addresses';
import type { DepositAccountKeys, DepositKeyFamily } from '../core/deposit-addresses';
import { accountKeysFromSeed, accountPublicKeyFromSeed, parseDepositSeed } from '../core/deposit-seed';
import type { Settings } from '../core/settings';

/** Each family's variable, as docs/configuration.md names it. */
export const DEPOSIT_XPUB_VARIABLES: Readonly<Record<DepositKeyFamily, string>> = {
  evm: 'EVM_DEPOSIT_XPUB',
  btc: 'BTC_DEPOSIT_XPUB',
  ltc: 'LTC_DEPOSIT_XPUB',
  doge: 'DOGE_DEPOSIT_XPUB',
};

const CONFIGURED: Readonly<Record<DepositKeyFamily, Exclude<keyof Settings['depositKeys'], 'seeds'>>> = {
  evm: 'evmPublicKey',
  btc: 'btcPublicKey',
  ltc: 'ltcPublicKey',
  doge: 'dogePublicKey',
};

/** Partners cannot be created without every family's key: no account may lack its deposit address. */
export class MissingDepositKeysError extends Error {
  constructor(readonly variables: readonly string[]) {
    super(
      `${variables.join(', ')} must be set to create partners: their deposit addresses derive from these account keys (docs/production.md, "Deposit keys"); under npm start the development seed in DATA_DIR provides them`,
    );
    this.name = 'MissingDepositKeysError';
  }
}

/** Each family's seed variable, as docs/configuration.md names it: only the sweeper is given them. */
export const DEPOSIT_SEED_VARIABLES: Readonly<Record<DepositKeyFamily, string>> = {
  evm: 'EVM_DEPOSIT_SEED',
  btc: 'BTC_DEPOSIT_SEED',
  ltc: 'LTC_DEPOSIT_SEED',
  doge: 'DOGE_DEPOSIT_SEED',
};

/**
 * Each family's configured extended public key (production's API side holds only these), else its seed's;
 * MissingDepositKeysError when a family has neither. Settings were validated, so a set key parses.
 */
export function depositAccountKeys(settings: Settings): DepositAccountKeys {
  const { depositKeys } = settings;
  const seedKeys = new Map(
    DEPOSIT_KEY_FAMILIES.flatMap((family) => {
      const seed = depositKeys.seeds[family];
      return seed === undefined ? [] : [[family, accountKeysFromSeed(parseDepositSeed(seed))] as const];
    }),
  );
  const configured = new Map(
    DEPOSIT_KEY_FAMILIES.flatMap((family) => {
      const text = depositKeys[CONFIGURED[family]];
      const key = text === undefined ? undefined : parseAccountPublicKey(family, text);
      return key === undefined || typeof key === 'string' ? [] : [[family, key] as const];
    }),
  );
  const missing = DEPOSIT_KEY_FAMILIES.filter((family) => !configured.has(family) && !seedKeys.has(family));
  if (missing.length > 0) throw new MissingDepositKeysError(missing.map((family) => DEPOSIT_XPUB_VARIABLES[family]));
  return { accountKey: (family, mode) => configured.get(family) ?? seedKeys.get(family)!.accountKey(family, mode) };
}

/**
 * What `npm run start:cluster` hands a child: every family's public key (its seed's, mainnet, unless configured), and
 * the seeds only to the sweeper.
 */
export function depositKeyVariables(settings: Settings, role: 'sweeper' | 'worker' | 'api'): Record<string, string> {
  const { seeds } = settings.depositKeys;
  const variables: Record<string, string> = {};
  for (const family of DEPOSIT_KEY_FAMILIES) {
    const seed = seeds[family];
    const publicKey =
      settings.depositKeys[CONFIGURED[family]] ??
      (seed === undefined ? undefined : accountPublicKeyFromSeed(parseDepositSeed(seed), family, 'mainnet'));
    if (publicKey !== undefined) variables[DEPOSIT_XPUB_VARIABLES[family]] = publicKey;
    if (role === 'sweeper' && seed !== undefined) variables[DEPOSIT_SEED_VARIABLES[family]] = seed;
  }
  return variables;
}
