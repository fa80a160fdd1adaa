import path from 'node:path';
import { z } from 'zod';
import type { DatabaseTimeouts } from './database-timeouts';
import { parsePayloadKeys } from './payload-codec';
import type { EurRates } from './rates';
import { stringProblem } from './text-safety';
import { parseRateTable } from './rates';
import { RAILS, isRail } from './rails';
import type { Rail } from './rails';
import type { TemporalAccess } from './temporal-connection';

/**
 * Every setting of the service: one zod schema over the environment (docs/configuration.md
 * lists the variables), validated as a whole at start-up, so a bad value stops the process with a message
 * that names its variable instead of failing a withdrawal later. Pure: the caller passes the
 * environment, so tests build settings without touching process.env. An empty variable counts
 * as unset.
 *
 * What production reads (`npm run api`, `npm run worker`) is at the top level; what only the
 * local machine uses (the embedded Postgres, the Temporal dev server and its UI, the data folder,
 * the simulated chain and bank) is kept apart in `development`.
 */
export interface Settings {
  port: number;
  /** The service's own connection (API, worker, CLI): the payments_app role, DML only. */
  databaseUrl: string | undefined;
  /** `npm run migrate` only: the payments_migrator role, which owns the schema. */
  databaseMigratorUrl: string | undefined;
  /** `npm run migrate` only, optional: a role that may create roles, to create the two above. */
  databaseAdminUrl: string | undefined;
  databaseReadUrl: string | undefined;
  temporalAddress: string | undefined;
  temporalNamespace: string;
  temporalTaskQueue: string;
  /** How long a POST waits for its workflow's answer before 503 (the operation goes on). */
  operationResponseTimeoutMs: number;
  eurRates: EurRates;
  defaultFeePercentage: string;
  maxBodyBytes: number;
  /** Per partner and API process; 0 turns rate limiting off. */
  rateLimitPerSecond: number;
  rateLimitBurst: number;
  /**
   * Failed authentications (unknown or revoked keys) per client address and API process: the
   * bucket refills at this rate (0 turns the limit off) and holds authFailureBurst. Once empty, a
   * key the process does not know to be active is refused with 429 without a database lookup.
   */
  authFailureLimitPerSecond: number;
  authFailureBurst: number;
  /** The API is behind a proxy that appends the client's address to X-Forwarded-For; else the socket's address counts. */
  trustProxy: boolean;
  /** The API's internal listener for GET /metrics (API_METRICS_HOST:API_METRICS_PORT); undefined when the port is 0. */
  apiMetrics: ListenAddress | undefined;
  logLevel: LogLevel;
  /** How long a withdrawal waits in IN_PROGRESS_TR_DATA before it fails and releases funds. */
  travelRuleDeadlineMs: number;
  travelRuleThresholdEur: string;
  /** Destination addresses refused before broadcast (compared without regard to case). */
  denyListedAddresses: readonly string[];
  /** The first wait before a failed webhook delivery is tried again; it doubles up to an hour. */
  webhookRetryBaseMs: number;
  /**
   * Webhooks may go to loopback addresses (plain http:// included): only for a receiver on this
   * machine (`npm start`, the tests). Private, link-local and other non-public targets never.
   */
  webhookAllowLoopback: boolean;
  /** Every Postgres pool's timeouts (db/connection-settings.ts). */
  databaseTimeouts: DatabaseTimeouts;
  /** TLS, API key and payload encryption towards Temporal (core/temporal-connection.ts). */
  temporal: TemporalAccess;
  /** The decode-only codec endpoint for the Web UI (`npm run codec`); off without a token. */
  codecEndpoint: { token: string | undefined; port: number; host: string; allowedOrigins: readonly string[] };
  /** The EVM networks withdrawals are really sent on (EvmChainAdapter); the others are simulated. */
  evmNetworks: Partial<Record<EvmNetworkName, EvmNetworkSettings>>;
  /**
   * SIMULATED_RAILS: the rails a production process is allowed to simulate. `npm run api` and
   * `npm run worker` refuse to start while a rail they would simulate is missing here (core/rails.ts).
   */
  acceptedSimulatedRails: readonly Rail[];
  /** The operator CLI (`npm run ops`). */
  operatorCli: OperatorCliSettings;
  development: DevelopmentSettings;
}

export interface ListenAddress {
  port: number;
  host: string;
}

export interface OperatorCliSettings {
  /** The actor of commands run without --operator; else the OS user. */
  operator: string | undefined;
  /** A manual deposit worth more (in EUR, at the configured rates) waits for a second operator; undefined: none does. */
  manualCreditApprovalAboveEur: string | undefined;
  /**
   * `distinct`: the approver must also run from another OS account than the requester (the login
   * is evidence; a typed name is not). `shared` where every operator runs from one account (a
   * container's): then only the names must differ.
   */
  manualCreditApprovalOsUsers: ManualCreditApprovalOsUsers;
}

export const MANUAL_CREDIT_APPROVAL_OS_USERS = ['distinct', 'shared'] as const;
export type ManualCreditApprovalOsUsers = (typeof MANUAL_CREDIT_APPROVAL_OS_USERS)[number];

export const EVM_NETWORK_NAMES = ['ethereum', 'polygon'] as const;
export type EvmNetworkName = (typeof EVM_NETWORK_NAMES)[number];

/** One EVM network's connection and hot wallet, from EVM_*_<NETWORK>; validated again by the adapter. */
export interface EvmNetworkSettings {
  rpcUrl: string;
  chainId: number;
  /** 0x + 64 hex digits. A secret: never logged, never in a message. */
  hotWalletPrivateKey: string;
  requiredConfirmations: number;
  replaceAfterMs: number;
  usdcTokenAddress: string;
  maxFeePerGasCapWei: bigint;
}

/** Where `npm start` sends eth and usdc withdrawals on ethereum: the simulation or a local Hardhat node. */
export const LOCAL_CHAINS = ['simulated', 'local-evm'] as const;
export type LocalChain = (typeof LOCAL_CHAINS)[number];

/** The local machine's infrastructure and the simulated adapters' knobs; production configures real ones. */
export interface DevelopmentSettings {
  /** Embedded Postgres files, the dev server's database and log, the demo key. */
  dataDir: string;
  embeddedPostgresPort: number;
  temporalCliPath: string | undefined;
  temporalPort: number;
  temporalUiPort: number;
  /** Simulated chain: time from broadcast to confirmation. */
  chainConfirmationDelayMs: number;
  /** Simulated bank: time from submission to its answer. */
  bankSettlementDelayMs: number;
  /** Simulated bank: creditor IBANs it rejects, to exercise the release path. */
  bankRejectIbans: readonly string[];
  /** `npm start` only: local-evm starts a Hardhat node and sends ethereum withdrawals there. */
  chain: LocalChain;
  evmNodePort: number;
  /** `npm start`'s API metrics listener: API_METRICS_PORT when set, else 9466 (9464 and 9465 are its worker's). */
  apiMetrics: ListenAddress | undefined;
}

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

type Environment = Readonly<Record<string, string | undefined>>;

/** Where `npm run api` serves /metrics unless API_METRICS_PORT says otherwise. */
const DEFAULT_API_METRICS_PORT = 9464;
/** `npm start`'s default: its worker has 9464 (the Temporal SDK's exporter) and 9465 (health and metrics). */
const START_API_METRICS_PORT = 9466;

/** The longest delay a Node timer honours (about 24.8 days); a longer one fires at once. */
const MAX_TIMER_MS = 2_147_483_647;

// ── One schema per kind of value; each message reads after the variable's name. ──

/** An empty variable is an unset one, so `FOO= npm start` keeps the default. */
const variable = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (value === '' ? undefined : value), schema);

const integer = (fallback: number, { min = 0, max = Number.MAX_SAFE_INTEGER, what = 'a whole number' } = {}) => {
  const rule = `must be ${what} from ${min} to ${max}`;
  return variable(
    z
      .string()
      .regex(/^\d{1,16}$/, rule)
      .transform(Number)
      .refine((value) => value >= min && value <= max, rule)
      .default(fallback),
  );
};

const port = (fallback: number) => integer(fallback, { min: 1, max: 65_535, what: 'a port number' });
const milliseconds = (fallback: number, { min = 0, max = MAX_TIMER_MS } = {}) =>
  integer(fallback, { min, max, what: 'a whole number of milliseconds' });

/** Digits with an optional fraction: no sign, exponent, separators or spaces (amounts are exact). */
const PLAIN_DECIMAL = /^\d{1,18}(\.\d{1,18})?$/;

const decimal = (fallback: string, example: string) =>
  variable(z.string().regex(PLAIN_DECIMAL, `must be a plain decimal such as ${example}`).default(fallback));

/** From 0 to below 100, at most 4 decimals: what the partner's fee column holds. */
const percentage = (fallback: string) =>
  variable(
    z
      .string()
      .regex(/^\d{1,2}(\.\d{1,4})?$/, 'must be a plain decimal from 0 to below 100 with at most 4 decimals, such as 1 or 0.25')
      .default(fallback),
  );

/** A name Temporal or a URL carries as is: no spaces or control characters. */
const name = (fallback: string) =>
  variable(
    z
      .string()
      .regex(/^[^\s\p{Cc}]{1,255}$/u, 'must be a name without spaces')
      .default(fallback),
  );

const optionalText = () => variable(z.string().optional());

/** A person's name as an audit row records it: at most 200 characters, no control characters. */
const personName = () =>
  variable(
    z
      .string()
      .trim()
      .min(1, 'must not be blank')
      .max(200, 'must be at most 200 characters')
      .refine((value) => stringProblem(value) === undefined, 'must not contain control characters or malformed Unicode')
      .optional(),
  );

/** An optional URL with one of these schemes, e.g. ['http:', 'https:']. */
const urlOf = (protocols: readonly string[], rule: string) =>
  variable(
    z
      .string()
      .refine((value) => {
        try {
          return protocols.includes(new URL(value).protocol);
        } catch {
          return false;
        }
      }, rule)
      .optional(),
  );

const postgresUrl = () => urlOf(['postgres:', 'postgresql:'], 'must be a postgres:// or postgresql:// URL');

/** host[:port] (the SDK defaults to 7233), the host a name, an IPv4 address or a bracketed IPv6 address. */
const hostAndPort = () =>
  variable(
    z
      .string()
      .refine((value) => {
        const match = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/.exec(value);
        return match !== null && (match[1] === undefined || (Number(match[1]) >= 1 && Number(match[1]) <= 65_535));
      }, 'must be host:port, such as temporal:7233')
      .optional(),
  );

/** Comma-separated; blanks around items and empty items are dropped. */
const list = () =>
  variable(
    z
      .string()
      .default('')
      .transform((value) =>
        value
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean),
      ),
  );

/** true/false (also 1/0, yes/no); unset is false. */
const flag = () =>
  variable(
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be true or false' })
      .default('false')
      .transform((value) => ['true', '1', 'yes'].includes(value)),
  );

/** id:base64key,… (core/payload-codec.ts); the message never repeats key material. */
const payloadKeys = () =>
  variable(
    z
      .string()
      .optional()
      .transform((value, context) => {
        if (value === undefined) return undefined;
        try {
          return parsePayloadKeys(value);
        } catch (error) {
          context.addIssue({ code: 'custom', message: `is not valid (${error instanceof Error ? error.message : String(error)})` });
          return z.NEVER;
        }
      }),
  );

const rateTable = () =>
  variable(
    z
      .string()
      .optional()
      .transform((value, context) => {
        try {
          return parseRateTable(value);
        } catch (error) {
          context.addIssue({
            code: 'custom',
            message: `is not a valid rate table (${error instanceof Error ? error.message : String(error)})`,
          });
          return z.NEVER;
        }
      }),
  );

/** 0x + 64 hex digits; the message never repeats the value. */
const privateKey = () =>
  variable(
    z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, 'must be 0x followed by 64 hex digits')
      .optional(),
  );

const evmAddress = () =>
  variable(
    z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/, 'must be 0x followed by 40 hex digits')
      .optional(),
  );

const httpUrl = () => urlOf(['http:', 'https:'], 'must be an http:// or https:// URL');

const weiAmount = (fallback: bigint) =>
  variable(
    z
      .string()
      .regex(/^\d{1,30}$/, 'must be a whole number of wei')
      .transform(BigInt)
      .default(fallback),
  );

/** The variables of one EVM network, e.g. EVM_RPC_URL_ETHEREUM; a network without an RPC URL is simulated. */
const evmNetworkShape = (suffix: string) => ({
  [`EVM_RPC_URL_${suffix}`]: httpUrl(),
  [`EVM_CHAIN_ID_${suffix}`]: variable(
    z
      .string()
      .regex(/^\d{1,15}$/, 'must be a whole number')
      .transform(Number)
      .refine((value) => value >= 1, 'must be a whole number from 1')
      .optional(),
  ),
  [`EVM_HOT_WALLET_KEY_${suffix}`]: privateKey(),
  [`EVM_CONFIRMATIONS_${suffix}`]: integer(12, { min: 1, max: 1000 }),
  [`EVM_USDC_ADDRESS_${suffix}`]: evmAddress(),
  [`EVM_MAX_FEE_PER_GAS_WEI_${suffix}`]: weiAmount(500_000_000_000n),
});

/** A comma list of rails (core/rails.ts); an unknown name is refused, not ignored. */
const rails = () =>
  list().superRefine((names, context) => {
    const unknown = names.filter((name) => !isRail(name));
    if (unknown.length > 0) {
      context.addIssue({ code: 'custom', message: `must be a comma list of ${RAILS.join(', ')} (unknown: ${unknown.join(', ')})` });
    }
  });

const logLevel = () => variable(z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'));

/** What production reads. Keys are the variables' names: an issue's path names its variable. */
const productionSchema = z.object({
  PORT: port(3000),
  DATABASE_URL: postgresUrl(),
  DATABASE_MIGRATOR_URL: postgresUrl(),
  DATABASE_ADMIN_URL: postgresUrl(),
  DATABASE_READ_URL: postgresUrl(),
  TEMPORAL_ADDRESS: hostAndPort(),
  TEMPORAL_NAMESPACE: name('default'),
  TEMPORAL_TASK_QUEUE: name('partner-payments'),
  OPERATION_RESPONSE_TIMEOUT_MS: milliseconds(30_000, { min: 1 }),
  EXCHANGE_RATES_JSON: rateTable(),
  DEFAULT_FEE_PERCENTAGE: percentage('1'),
  MAX_BODY_BYTES: integer(64 * 1024, { min: 1, max: 100 * 1024 * 1024, what: 'a number of bytes' }),
  RATE_LIMIT_PER_SECOND: integer(50, { max: 1_000_000 }),
  RATE_LIMIT_BURST: integer(200, { max: 1_000_000 }),
  AUTH_FAILURE_LIMIT_PER_SECOND: integer(5, { max: 1_000_000 }),
  AUTH_FAILURE_BURST: integer(100, { min: 1, max: 1_000_000 }),
  TRUST_PROXY: flag(),
  // No default here: unset, `npm run api` takes 9464 and `npm start` 9466 (loadSettings).
  API_METRICS_PORT: variable(
    z
      .string()
      .regex(/^\d{1,5}$/, 'must be a port number from 0 (off) to 65535')
      .transform(Number)
      .refine((value) => value <= 65_535, 'must be a port number from 0 (off) to 65535')
      .optional(),
  ),
  API_METRICS_HOST: variable(z.string().default('127.0.0.1')),
  LOG_LEVEL: logLevel(),
  // A Temporal timer, not a Node one: days or weeks are fine.
  TRAVEL_RULE_DEADLINE_MS: milliseconds(24 * 60 * 60 * 1000, { min: 1, max: Number.MAX_SAFE_INTEGER }),
  TRAVEL_RULE_THRESHOLD_EUR: decimal('1000', '1000'),
  DENY_LIST_ADDRESSES: list(),
  WEBHOOK_RETRY_BASE_MS: milliseconds(5_000, { min: 1, max: 60 * 60 * 1000 }),
  WEBHOOK_ALLOW_LOOPBACK: flag(),
  DATABASE_CONNECT_TIMEOUT_MS: milliseconds(5_000, { min: 1 }),
  DATABASE_STATEMENT_TIMEOUT_MS: milliseconds(30_000, { min: 1 }),
  DATABASE_LOCK_TIMEOUT_MS: milliseconds(10_000, { min: 1 }),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: milliseconds(60_000, { min: 1 }),
  DATABASE_KEEPALIVE_DELAY_MS: milliseconds(10_000, { min: 1 }),
  PAYLOAD_ENCRYPTION_KEYS: payloadKeys(),
  TEMPORAL_TLS: flag(),
  TEMPORAL_TLS_CERT_PATH: optionalText(),
  TEMPORAL_TLS_KEY_PATH: optionalText(),
  TEMPORAL_TLS_CA_PATH: optionalText(),
  TEMPORAL_TLS_SERVER_NAME: optionalText(),
  TEMPORAL_API_KEY: optionalText(),
  CODEC_ENDPOINT_TOKEN: variable(z.string().min(16, 'must be at least 16 characters').optional()),
  CODEC_PORT: port(8234),
  CODEC_HOST: variable(z.string().default('127.0.0.1')),
  CODEC_CORS_ORIGINS: list(),
  ...evmNetworkShape('ETHEREUM'),
  ...evmNetworkShape('POLYGON'),
  // Each replacement raises fees by a quarter: a short wait would walk them to the cap in minutes.
  EVM_REPLACE_AFTER_MS: milliseconds(180_000, { min: 10_000 }),
  SIMULATED_RAILS: rails(),
  OPS_OPERATOR: personName(),
  MANUAL_CREDIT_APPROVAL_ABOVE_EUR: variable(z.string().regex(PLAIN_DECIMAL, 'must be a plain decimal such as 10000').optional()),
  MANUAL_CREDIT_APPROVAL_OS_USERS: variable(
    z.enum(MANUAL_CREDIT_APPROVAL_OS_USERS, { error: `must be one of ${MANUAL_CREDIT_APPROVAL_OS_USERS.join(', ')}` }).default('distinct'),
  ),
});

/** What only the local machine uses. */
const developmentSchema = z.object({
  DATA_DIR: variable(z.string().default('.data')),
  EMBEDDED_POSTGRES_PORT: port(54320),
  TEMPORAL_CLI_PATH: optionalText(),
  TEMPORAL_PORT: port(7233),
  TEMPORAL_UI_PORT: port(8233),
  CHAIN_CONFIRMATION_DELAY_MS: milliseconds(5_000),
  BANK_SETTLEMENT_DELAY_MS: milliseconds(5_000),
  SIMULATED_BANK_REJECT_IBANS: list(),
  CHAIN: variable(z.enum(LOCAL_CHAINS, { error: `must be one of ${LOCAL_CHAINS.join(', ')}` }).default('local-evm')),
  EVM_NODE_PORT: port(8545),
});

/** Every variable the service reads, for documentation and tests. */
export const SETTING_VARIABLES = [...Object.keys(productionSchema.shape), ...Object.keys(developmentSchema.shape)];

/** Thrown when the environment does not hold valid settings; one line per bad variable. */
export class InvalidSettingsError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid settings:\n  ${problems.join('\n  ')}`);
    this.name = 'InvalidSettingsError';
  }
}

export function loadSettings(env: Environment, projectRoot: string): Settings {
  const production = productionSchema.safeParse(env);
  const development = developmentSchema.safeParse(env);
  const problems = [production, development].flatMap((result) =>
    result.success ? [] : result.error.issues.map((issue) => describe(issue, env)),
  );
  if (!production.success || !development.success) throw new InvalidSettingsError(problems);
  const p = production.data;
  const d = development.data;
  const evmNetworks = evmNetworksOf(p);
  if ('problems' in evmNetworks) throw new InvalidSettingsError(evmNetworks.problems);
  const dataDir = path.resolve(projectRoot, d.DATA_DIR);
  /** Port 0 turns the listener off. */
  const apiMetricsAt = (port: number): ListenAddress | undefined => (port === 0 ? undefined : { port, host: p.API_METRICS_HOST });
  return {
    port: p.PORT,
    databaseUrl: p.DATABASE_URL,
    databaseMigratorUrl: p.DATABASE_MIGRATOR_URL,
    databaseAdminUrl: p.DATABASE_ADMIN_URL,
    databaseReadUrl: p.DATABASE_READ_URL,
    temporalAddress: p.TEMPORAL_ADDRESS,
    temporalNamespace: p.TEMPORAL_NAMESPACE,
    temporalTaskQueue: p.TEMPORAL_TASK_QUEUE,
    operationResponseTimeoutMs: p.OPERATION_RESPONSE_TIMEOUT_MS,
    eurRates: p.EXCHANGE_RATES_JSON,
    defaultFeePercentage: p.DEFAULT_FEE_PERCENTAGE,
    maxBodyBytes: p.MAX_BODY_BYTES,
    rateLimitPerSecond: p.RATE_LIMIT_PER_SECOND,
    rateLimitBurst: p.RATE_LIMIT_BURST,
    authFailureLimitPerSecond: p.AUTH_FAILURE_LIMIT_PER_SECOND,
    authFailureBurst: p.AUTH_FAILURE_BURST,
    trustProxy: p.TRUST_PROXY,
    apiMetrics: apiMetricsAt(p.API_METRICS_PORT ?? DEFAULT_API_METRICS_PORT),
    logLevel: p.LOG_LEVEL,
    travelRuleDeadlineMs: p.TRAVEL_RULE_DEADLINE_MS,
    travelRuleThresholdEur: p.TRAVEL_RULE_THRESHOLD_EUR,
    denyListedAddresses: p.DENY_LIST_ADDRESSES,
    webhookRetryBaseMs: p.WEBHOOK_RETRY_BASE_MS,
    webhookAllowLoopback: p.WEBHOOK_ALLOW_LOOPBACK,
    databaseTimeouts: {
      connectTimeoutMs: p.DATABASE_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: p.DATABASE_STATEMENT_TIMEOUT_MS,
      lockTimeoutMs: p.DATABASE_LOCK_TIMEOUT_MS,
      idleInTransactionTimeoutMs: p.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      keepAliveInitialDelayMs: p.DATABASE_KEEPALIVE_DELAY_MS,
    },
    temporal: {
      payloadKeys: p.PAYLOAD_ENCRYPTION_KEYS,
      tls: p.TEMPORAL_TLS,
      tlsCertPath: p.TEMPORAL_TLS_CERT_PATH,
      tlsKeyPath: p.TEMPORAL_TLS_KEY_PATH,
      tlsCaPath: p.TEMPORAL_TLS_CA_PATH,
      tlsServerName: p.TEMPORAL_TLS_SERVER_NAME,
      apiKey: p.TEMPORAL_API_KEY,
    },
    codecEndpoint: { token: p.CODEC_ENDPOINT_TOKEN, port: p.CODEC_PORT, host: p.CODEC_HOST, allowedOrigins: p.CODEC_CORS_ORIGINS },
    evmNetworks: evmNetworks.networks,
    acceptedSimulatedRails: RAILS.filter((rail) => p.SIMULATED_RAILS.includes(rail)),
    operatorCli: {
      operator: p.OPS_OPERATOR,
      manualCreditApprovalAboveEur: p.MANUAL_CREDIT_APPROVAL_ABOVE_EUR,
      manualCreditApprovalOsUsers: p.MANUAL_CREDIT_APPROVAL_OS_USERS,
    },
    development: {
      dataDir,
      embeddedPostgresPort: d.EMBEDDED_POSTGRES_PORT,
      temporalCliPath: d.TEMPORAL_CLI_PATH,
      temporalPort: d.TEMPORAL_PORT,
      temporalUiPort: d.TEMPORAL_UI_PORT,
      chainConfirmationDelayMs: d.CHAIN_CONFIRMATION_DELAY_MS,
      bankSettlementDelayMs: d.BANK_SETTLEMENT_DELAY_MS,
      bankRejectIbans: d.SIMULATED_BANK_REJECT_IBANS,
      chain: d.CHAIN,
      evmNodePort: d.EVM_NODE_PORT,
      apiMetrics: apiMetricsAt(p.API_METRICS_PORT ?? START_API_METRICS_PORT),
    },
  };
}

/** A network is real once its RPC URL is set; then its chain id and hot wallet key are required too. */
function evmNetworksOf(
  p: Readonly<Record<string, unknown>>,
): { networks: Partial<Record<EvmNetworkName, EvmNetworkSettings>> } | { problems: string[] } {
  const networks: Partial<Record<EvmNetworkName, EvmNetworkSettings>> = {};
  const problems: string[] = [];
  for (const network of EVM_NETWORK_NAMES) {
    const suffix = network.toUpperCase();
    const rpcUrl = p[`EVM_RPC_URL_${suffix}`] as string | undefined;
    if (rpcUrl === undefined) continue;
    const chainId = p[`EVM_CHAIN_ID_${suffix}`] as number | undefined;
    const hotWalletPrivateKey = p[`EVM_HOT_WALLET_KEY_${suffix}`] as string | undefined;
    if (chainId === undefined) problems.push(`EVM_CHAIN_ID_${suffix} is required when EVM_RPC_URL_${suffix} is set`);
    if (hotWalletPrivateKey === undefined) problems.push(`EVM_HOT_WALLET_KEY_${suffix} is required when EVM_RPC_URL_${suffix} is set`);
    // The API takes usdc on every EVM network: a live network without its token would hold such
    // withdrawals after their hand-off, so it does not start.
    const usdcTokenAddress = p[`EVM_USDC_ADDRESS_${suffix}`] as string | undefined;
    if (usdcTokenAddress === undefined) problems.push(`EVM_USDC_ADDRESS_${suffix} is required when EVM_RPC_URL_${suffix} is set`);
    if (chainId === undefined || hotWalletPrivateKey === undefined || usdcTokenAddress === undefined) continue;
    networks[network] = {
      rpcUrl,
      chainId,
      hotWalletPrivateKey,
      requiredConfirmations: p[`EVM_CONFIRMATIONS_${suffix}`] as number,
      replaceAfterMs: p.EVM_REPLACE_AFTER_MS as number,
      usdcTokenAddress,
      maxFeePerGasCapWei: p[`EVM_MAX_FEE_PER_GAS_WEI_${suffix}`] as bigint,
    };
  }
  return problems.length > 0 ? { problems } : { networks };
}

/** Values never repeated in a message: they may carry a password. */
const SECRET_VARIABLES = new Set([
  'DATABASE_URL',
  'DATABASE_MIGRATOR_URL',
  'DATABASE_ADMIN_URL',
  'DATABASE_READ_URL',
  'PAYLOAD_ENCRYPTION_KEYS',
  'TEMPORAL_API_KEY',
  'CODEC_ENDPOINT_TOKEN',
  'EVM_HOT_WALLET_KEY_ETHEREUM',
  'EVM_HOT_WALLET_KEY_POLYGON',
  'EVM_RPC_URL_ETHEREUM',
  'EVM_RPC_URL_POLYGON',
]);

/** "PORT must be a port number from 1 to 65535, got "eighty"": the variable, the rule, the value. */
function describe(issue: z.ZodError['issues'][number], env: Environment): string {
  const variableName = String(issue.path[0] ?? 'environment');
  const raw = env[variableName];
  const shown =
    raw === undefined || SECRET_VARIABLES.has(variableName)
      ? ''
      : `, got ${JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw)}`;
  return `${variableName} ${issue.message}${shown}`;
}
