import fs from 'node:fs';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { DepositAccountKeys } from '../core/deposit-addresses';
import { depositSeedProblem, generateDepositSeed } from '../core/deposit-seed';
import type { Logger } from '../core/logger';
import type { Settings } from '../core/settings';
import { rederiveDevelopmentDepositAddresses } from '../db/services/deposit-address.service';

/**
 * On a developer's machine deposit addresses derive from a seed kept in the data folder, so they survive restarts;
 * only while no deposit key variable is set. Production entry points never read it.
 */
export function withDevelopmentDepositSeed(settings: Settings, { create }: { create: boolean }): Settings {
  if (depositKeysGiven(settings)) return settings;
  const file = developmentSeedFile(settings);
  if (!fs.existsSync(file)) {
    if (!create) return settings;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${generateDepositSeed()}\n`, { mode: 0o600 });
  }
  const seed = fs.readFileSync(file, 'utf8').trim();
  const problem = depositSeedProblem(seed);
  if (problem !== undefined) throw new Error(`${file}: the development deposit seed ${problem} (delete the file to get a new one)`);
  // Development only: one seed for every family, so a data folder has one file; production gives each family its own.
  const seeds = { evm: seed, btc: seed, ltc: seed, doge: seed };
  return { ...settings, depositKeys: { ...settings.depositKeys, seeds } };
}

function depositKeysGiven(settings: Settings): boolean {
  const { seeds, ...publicKeys } = settings.depositKeys;
  return [...Object.values(seeds), ...Object.values(publicKeys)].some((value) => value !== undefined);
}

function developmentSeedFile(settings: Settings): string {
  return path.join(settings.development.dataDir, 'deposit-seed');
}

/** For a development banner: where deposit addresses derive from, given the settings as read from the environment. */
export function depositKeysOrigin(settings: Settings): string {
  return depositKeysGiven(settings)
    ? 'EVM_DEPOSIT_XPUB, EVM_DEPOSIT_SEED and their kin, as set'
    : `${developmentSeedFile(settings)} (development; production gives the API side only EVM_DEPOSIT_XPUB and its kin)`;
}

/**
 * Development only: every partner gets the addresses its deposit index derives to under these keys (made under another
 * seed, say). Idempotent; in production an address partners were given stays theirs.
 */
export async function rederiveDevelopmentPartners(orm: MikroORM, keys: DepositAccountKeys, log: Logger): Promise<void> {
  const changed = await orm.em.fork().transactional((em) => rederiveDevelopmentDepositAddresses(em, keys));
  if (changed > 0) log.info(`gave ${changed} development partner accounts their derived deposit addresses`);
}
