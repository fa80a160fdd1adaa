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

const CONFIGURED: Readonly<Record<DepositKeyFamily, keyof Settings['depositKeys']>> = {
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

/**
 * Each family's configured extended public key (production's API side holds only these), else EVM_DEPOSIT_SEED's;
 * MissingDepositKeysError when a family has neither. Settings were validated, so a set key parses.
 */
export function depositAccountKeys(settings: Settings): DepositAccountKeys {
  const { depositKeys } = settings;
  const seedKeys = depositKeys.evmSeed === undefined ? undefined : accountKeysFromSeed(parseDepositSeed(depositKeys.evmSeed));
  const configured = new Map(
    DEPOSIT_KEY_FAMILIES.flatMap((family) => {
      const text = depositKeys[CONFIGURED[family]];
      const key = text === undefined ? undefined : parseAccountPublicKey(family, text);
      return key === undefined || typeof key === 'string' ? [] : [[family, key] as const];
    }),
  );
  const missing = DEPOSIT_KEY_FAMILIES.filter((family) => !configured.has(family) && seedKeys === undefined);
  if (missing.length > 0) throw new MissingDepositKeysError(missing.map((family) => DEPOSIT_XPUB_VARIABLES[family]));
  return { accountKey: (family, mode) => configured.get(family) ?? seedKeys!.accountKey(family, mode) };
}

/** What `npm run start:cluster` hands its children: the seed's public keys (mainnet), and the seed only to the worker. */
export function depositKeyVariables(settings: Settings, role: 'worker' | 'api'): Record<string, string> {
  const { evmSeed } = settings.depositKeys;
  if (evmSeed === undefined) return {};
  const seed = parseDepositSeed(evmSeed);
  const publicKeys = Object.fromEntries(
    DEPOSIT_KEY_FAMILIES.map((family) => [
      DEPOSIT_XPUB_VARIABLES[family],
      settings.depositKeys[CONFIGURED[family]] ?? accountPublicKeyFromSeed(seed, family, 'mainnet'),
    ]),
  );
  return role === 'worker' ? { ...publicKeys, EVM_DEPOSIT_SEED: evmSeed } : publicKeys;
}
