import fs from 'node:fs';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { DepositAccountKeys } from '../core/deposit-addresses';
import { depositSeedProblem, generateDepositSeed } from '../core/deposit-seed';
import type { Logger } from '../core/logger';
import type { Settings } from '../core/settings';
import { rederiveDevelopmentDepositAddresses } from '../db/services/deposit-address.service';

/**
 * On one developer's machine (`npm start`, `npm run start:cluster`, and the operator CLI beside
 * them) deposit addresses derive from a seed kept in the data folder, so they stay the same across
 * restarts. Used only while none of the deposit key variables is set: EVM_DEPOSIT_SEED or the
 * extended public keys, when given, win. Production entry points never read this file.
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
  return { ...settings, depositKeys: { ...settings.depositKeys, evmSeed: seed } };
}

function depositKeysGiven(settings: Settings): boolean {
  return Object.values(settings.depositKeys).some((value) => value !== undefined);
}

function developmentSeedFile(settings: Settings): string {
  return path.join(settings.development.dataDir, 'deposit-seed');
}

/** For a development banner: where deposit addresses derive from, given the settings as read from the environment. */
export function depositKeysOrigin(settings: Settings): string {
  return depositKeysGiven(settings)
    ? 'EVM_DEPOSIT_SEED / EVM_DEPOSIT_XPUB and its kin, as set'
    : `${developmentSeedFile(settings)} (development; production gives the API side only EVM_DEPOSIT_XPUB and its kin)`;
}

/**
 * `npm start` and `npm run start:cluster`, before the demo partner: every partner of the
 * development database gets the addresses its deposit index derives to under these settings'
 * keys (partners made before addresses were derived, or under another seed). Idempotent; never
 * run by a production entry point, where an address partners were given stays theirs.
 */
export async function rederiveDevelopmentPartners(orm: MikroORM, keys: DepositAccountKeys, log: Logger): Promise<void> {
  const changed = await orm.em.fork().transactional((em) => rederiveDevelopmentDepositAddresses(em, keys));
  if (changed > 0) log.info(`gave ${changed} development partner accounts their derived deposit addresses`);
}
