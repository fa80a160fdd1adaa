import path from 'node:path';
import { z } from 'zod';
import { accountPublicKeyFromSeed, parseDepositSeed } from '../deposit-seed';
import { DEPOSIT_KEY_FAMILIES, parseAccountPublicKey } from '../deposit-addresses';
import type { ChainMode } from '../chain-parameters';
import { LOOPBACK } from '../listen-address';
import { RAILS } from '../rails';
import { DEFAULT_API_METRICS_PORT, START_API_METRICS_PORT } from './declarations/api';
import { SETTINGS } from './declarations';
import { EVM_NETWORK_NAMES, UTXO_NETWORK_NAMES } from './declarations/rails';
import type { EvmNetworkName, UtxoNetworkName } from './declarations/rails';
import { removeSecretsFromEnvironment, withSecretFiles } from './secret-files';
import { settingsIn, valuesOf } from './setting';
import type { ValuesOf } from './setting';

// Validated as a whole at start-up: a bad value stops the process naming its variable, not a withdrawal later.

type Environment = Readonly<Record<string, string | undefined>>;

/** Every declared variable and its place in the tree, in declaration order. */
export const DECLARED_SETTINGS = settingsIn(SETTINGS);

/** Every variable the service reads, for tests and the benchmark's clean environment. */
export const SETTING_VARIABLES: readonly string[] = DECLARED_SETTINGS.map(({ setting }) => setting.variable);

/** Values never repeated in a message: keys, tokens, URLs that may carry a password. */
const SECRET_VARIABLES: ReadonlySet<string> = new Set(
  DECLARED_SETTINGS.filter(({ setting }) => setting.secret).map(({ setting }) => setting.variable),
);

/** Keys are the variables' names: an issue's path names its variable. */
const ENVIRONMENT_SCHEMA = z.object(Object.fromEntries(DECLARED_SETTINGS.map(({ setting }) => [setting.variable, setting.schema])));

/** Thrown when the environment does not hold valid settings; one line per bad variable. */
export class InvalidSettingsError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid settings:\n  ${problems.join('\n  ')}`);
    this.name = 'InvalidSettingsError';
  }
}

/** Every setting of the service, as the code reads it. */
export type Settings = ReturnType<typeof assembled>;

export function loadSettings(env: Environment, projectRoot: string): Settings {
  const parsed = ENVIRONMENT_SCHEMA.safeParse(env);
  if (!parsed.success) throw new InvalidSettingsError(parsed.error.issues.map((issue) => describe(issue, env)));
  return assembled(valuesOf(SETTINGS, parsed.data), projectRoot);
}

/**
 * A process's own settings: each secret may come from a file (`NAME_FILE`, secret-files.ts), and once loaded every secret
 * leaves the process's environment, so no child process (a node, a build, a tool) inherits a key it has no use for.
 */
export function loadProcessEnvironment(env: NodeJS.ProcessEnv, projectRoot: string): Settings {
  const settings = loadSettings(withSecretsFromFiles(env), projectRoot);
  removeSecrets(env);
  return settings;
}

/** The environment with each secret's file read into it (and its `_FILE` variable gone); InvalidSettingsError on a bad one. */
export function withSecretsFromFiles(env: Environment): Record<string, string | undefined> {
  const withFiles = withSecretFiles(env, SECRET_VARIABLES);
  if (withFiles.problems.length > 0) throw new InvalidSettingsError(withFiles.problems);
  for (const variable of SECRET_VARIABLES) delete withFiles.env[`${variable}_FILE`];
  return withFiles.env;
}

/** Every secret and its file's path out of `env` (a process's, once read). */
export function removeSecrets(env: NodeJS.ProcessEnv): void {
  removeSecretsFromEnvironment(env, SECRET_VARIABLES);
}

export interface ListenAddress {
  port: number;
  host: string;
}

type Declared = ValuesOf<typeof SETTINGS>;
type DeclaredEvmNetwork = Declared['evm']['networks'][EvmNetworkName];

/** One EVM network's connection and hot wallet, once its RPC URL, chain id, key and token are all set. */
export type EvmNetworkSettings = { [Key in keyof DeclaredEvmNetwork]-?: NonNullable<DeclaredEvmNetwork[Key]> } & { replaceAfterMs: number };

type DeclaredUtxoNetwork = Declared['utxo']['networks'][UtxoNetworkName];

/** One UTXO network's node and hot wallet, once its RPC URL and key are both set. */
export type UtxoNetworkSettings = { [Key in keyof DeclaredUtxoNetwork]-?: NonNullable<DeclaredUtxoNetwork[Key]> } & {
  replaceAfterMs: number;
};

/** The interface of each listener a process opens. */
export interface ListenHosts {
  api: string;
  apiMetrics: string;
  /** Both of the worker's: the SDK's exporter and its health and metrics server. */
  worker: string;
  codec: string;
}

/** Production's binds when `*_HOST` is unset: the API and worker reached from other containers, the rest on loopback. */
const PRODUCTION_LISTEN_HOSTS: ListenHosts = { api: '0.0.0.0', apiMetrics: LOOPBACK, worker: '0.0.0.0', codec: LOOPBACK };

/** The rules across variables: listener hosts (`*_HOST`, else production's or, under `npm start`, HOST), EVM networks, DATA_DIR. */
function assembled(declared: Declared, projectRoot: string) {
  const { host, apiMetrics, workerObservability, codecEndpoint, evm, utxo, acceptedSimulatedRails, development, ...direct } = declared;
  const seedProblem = depositSeedDisagreement(declared.depositKeys);
  if (seedProblem) throw new InvalidSettingsError([seedProblem]);
  // One queue for both would hand the sweeper's tasks to a worker without the keys, and the worker's to the sweeper.
  if (direct.temporalSweeperTaskQueue === direct.temporalTaskQueue) {
    throw new InvalidSettingsError([
      `TEMPORAL_SWEEPER_TASK_QUEUE must differ from TEMPORAL_TASK_QUEUE (both ${direct.temporalTaskQueue}): only the sweeper serves its queue`,
    ]);
  }
  const hostsOr = (fallback: ListenHosts): ListenHosts => ({
    api: host ?? fallback.api,
    apiMetrics: apiMetrics.host ?? fallback.apiMetrics,
    worker: workerObservability.host ?? fallback.worker,
    codec: codecEndpoint.host ?? fallback.codec,
  });
  const production = hostsOr(PRODUCTION_LISTEN_HOSTS);
  const local = hostsOr({ api: development.host, apiMetrics: development.host, worker: development.host, codec: development.host });
  const apiMetricsAt = (port: number, on: string): ListenAddress | undefined => (port === 0 ? undefined : { port, host: on });
  return {
    ...direct,
    temporalSweeperTaskQueue: direct.temporalSweeperTaskQueue ?? `${direct.temporalTaskQueue}-sweeper`,
    host: production.api,
    apiMetrics: apiMetricsAt(apiMetrics.port ?? DEFAULT_API_METRICS_PORT, production.apiMetrics),
    workerObservability: { ...workerObservability, host: production.worker },
    codecEndpoint: { ...codecEndpoint, host: production.codec },
    evmNetworks: evmNetworksOf(evm),
    utxoNetworks: utxoNetworksOf(utxo),
    /** The rails a production process is allowed to simulate (core/rails.ts). */
    acceptedSimulatedRails: RAILS.filter((rail) => acceptedSimulatedRails.includes(rail)),
    development: {
      ...development,
      dataDir: path.resolve(projectRoot, development.dataDir),
      /** `npm start`'s API metrics listener: apart from its worker's 9464 and 9465 unless API_METRICS_PORT is set. */
      apiMetrics: apiMetricsAt(apiMetrics.port ?? START_API_METRICS_PORT, local.apiMetrics),
      /** Where `npm start` and `npm run start:cluster` bind each listener: its own `*_HOST`, else HOST. */
      listenHosts: local,
    },
  };
}

/** A network is real once its RPC URL is set; then its chain id, hot wallet key and USDC token are required too. */
function evmNetworksOf(evm: Declared['evm']): Partial<Record<EvmNetworkName, EvmNetworkSettings>> {
  const networks: Partial<Record<EvmNetworkName, EvmNetworkSettings>> = {};
  const problems: string[] = [];
  for (const network of EVM_NETWORK_NAMES) {
    const { rpcUrl, chainId, hotWalletPrivateKey, usdcTokenAddress, ...rest } = evm.networks[network];
    if (rpcUrl === undefined) continue;
    const suffix = network.toUpperCase();
    if (chainId === undefined) problems.push(`EVM_CHAIN_ID_${suffix} is required when EVM_RPC_URL_${suffix} is set`);
    if (hotWalletPrivateKey === undefined) problems.push(`EVM_HOT_WALLET_KEY_${suffix} is required when EVM_RPC_URL_${suffix} is set`);
    // The API takes usdc on every EVM network: a live network without its token would hold such
    // withdrawals after their hand-off, so it does not start.
    if (usdcTokenAddress === undefined) problems.push(`EVM_USDC_ADDRESS_${suffix} is required when EVM_RPC_URL_${suffix} is set`);
    if (chainId === undefined || hotWalletPrivateKey === undefined || usdcTokenAddress === undefined) continue;
    networks[network] = { rpcUrl, chainId, hotWalletPrivateKey, usdcTokenAddress, ...rest, replaceAfterMs: evm.replaceAfterMs };
  }
  if (problems.length > 0) throw new InvalidSettingsError(problems);
  return networks;
}

/** A network is real once its RPC URL is set; then its hot wallet key is required too. */
function utxoNetworksOf(utxo: Declared['utxo']): Partial<Record<UtxoNetworkName, UtxoNetworkSettings>> {
  const networks: Partial<Record<UtxoNetworkName, UtxoNetworkSettings>> = {};
  const problems: string[] = [];
  for (const network of UTXO_NETWORK_NAMES) {
    const { rpcUrl, hotWalletKey, ...rest } = utxo.networks[network];
    if (rpcUrl === undefined) continue;
    const suffix = network.toUpperCase();
    if (hotWalletKey === undefined) {
      problems.push(`UTXO_HOT_WALLET_KEY_${suffix} is required when UTXO_RPC_URL_${suffix} is set`);
      continue;
    }
    if (rest.feeRateFloor > rest.feeRateCeiling) problems.push(`UTXO_FEE_RATE_FLOOR_${suffix} is above UTXO_FEE_RATE_CEILING_${suffix}`);
    networks[network] = { rpcUrl, hotWalletKey, ...rest, replaceAfterMs: utxo.replaceAfterMs };
  }
  if (problems.length > 0) throw new InvalidSettingsError(problems);
  return networks;
}

/**
 * Each family's seed and xpub must be one key, or deposits land where the sweeper cannot spend them; compared by key and
 * chain code, not version bytes. A UTXO family's xpub may be its mainnet or its testnet account (network_config decides).
 */
function depositSeedDisagreement(keys: Declared['depositKeys']): string | undefined {
  const configuredKeys = { evm: keys.evmPublicKey, btc: keys.btcPublicKey, ltc: keys.ltcPublicKey, doge: keys.dogePublicKey };
  const same = (a: Uint8Array | null, b: Uint8Array | null) => a !== null && b !== null && Buffer.from(a).equals(Buffer.from(b));
  const disagreeing = DEPOSIT_KEY_FAMILIES.flatMap((family) => {
    const text = configuredKeys[family];
    const seedText = keys.seeds[family];
    if (text === undefined || seedText === undefined) return [];
    const configured = parseAccountPublicKey(family, text);
    // Checked on its own already: a malformed one has its own message.
    if (typeof configured === 'string') return [];
    const seed = parseDepositSeed(seedText);
    const modes: ChainMode[] = family === 'evm' ? ['mainnet'] : ['mainnet', 'testnet'];
    const agrees = modes.some((mode) => {
      const derived = parseAccountPublicKey(family, accountPublicKeyFromSeed(seed, family, mode));
      return typeof derived !== 'string' && same(configured.publicKey, derived.publicKey) && same(configured.chainCode, derived.chainCode);
    });
    const prefix = family.toUpperCase();
    return agrees ? [] : [`${prefix}_DEPOSIT_XPUB is not the account key of ${prefix}_DEPOSIT_SEED`];
  });
  if (disagreeing.length === 0) return undefined;
  return `${disagreeing.join('; ')}: deposits would go to addresses the sweeper cannot spend`;
}

/** "PORT must be a port number from 1 to 65535, got "eighty"": the variable, the rule, the value unless it is a secret. */
function describe(issue: z.ZodError['issues'][number], env: Environment): string {
  const variableName = String(issue.path[0] ?? 'environment');
  const raw = env[variableName];
  const shown =
    raw === undefined || SECRET_VARIABLES.has(variableName)
      ? ''
      : `, got ${JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw)}`;
  return `${variableName} ${issue.message}${shown}`;
}
