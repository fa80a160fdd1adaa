import path from 'node:path';
import type { EurRates } from './rates';
import { parseRateTable } from './rates';

/**
 * Every setting of the service, read once from the environment (README lists them). Pure: the
 * caller passes the environment, so tests can build settings without touching process.env.
 */
export interface Settings {
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  databaseReadUrl: string | undefined;
  embeddedPostgresPort: number;
  temporalAddress: string | undefined;
  temporalNamespace: string;
  temporalTaskQueue: string;
  /** How long a POST waits for its workflow's answer before 503 (the operation goes on). */
  operationResponseTimeoutMs: number;
  temporalCliPath: string | undefined;
  temporalPort: number;
  temporalUiPort: number;
  eurRates: EurRates;
  defaultFeePercentage: string;
  maxBodyBytes: number;
  /** Per partner and API process; 0 turns rate limiting off. */
  rateLimitPerSecond: number;
  rateLimitBurst: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Simulated chain: time from broadcast to confirmation. */
  chainConfirmationDelayMs: number;
  /** How long a withdrawal waits in IN_PROGRESS_TR_DATA before it fails and releases funds. */
  travelRuleDeadlineMs: number;
  travelRuleThresholdEur: string;
  /** Destination addresses refused before broadcast (compared without regard to case). */
  denyListedAddresses: readonly string[];
  /** Simulated bank: time from submission to its answer. */
  bankSettlementDelayMs: number;
  bankOutboxDir: string;
  /** Simulated bank: creditor IBANs it rejects, to exercise the release path. */
  bankRejectIbans: readonly string[];
}

type Environment = Readonly<Record<string, string | undefined>>;

function integer(env: Environment, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return Number(raw);
}

function list(env: Environment, name: string): string[] {
  return (text(env, name) ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

function text(env: Environment, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw === '' ? undefined : raw;
}

export function loadSettings(env: Environment, projectRoot: string): Settings {
  const logLevel = text(env, 'LOG_LEVEL') ?? 'info';
  if (!['debug', 'info', 'warn', 'error'].includes(logLevel)) throw new Error(`LOG_LEVEL must be debug|info|warn|error`);
  return {
    port: integer(env, 'PORT', 3000),
    dataDir: path.resolve(projectRoot, text(env, 'DATA_DIR') ?? '.data'),
    databaseUrl: text(env, 'DATABASE_URL'),
    databaseReadUrl: text(env, 'DATABASE_READ_URL'),
    embeddedPostgresPort: integer(env, 'EMBEDDED_POSTGRES_PORT', 54320),
    temporalAddress: text(env, 'TEMPORAL_ADDRESS'),
    temporalNamespace: text(env, 'TEMPORAL_NAMESPACE') ?? 'default',
    temporalTaskQueue: text(env, 'TEMPORAL_TASK_QUEUE') ?? 'partner-payments',
    operationResponseTimeoutMs: integer(env, 'OPERATION_RESPONSE_TIMEOUT_MS', 30_000),
    temporalCliPath: text(env, 'TEMPORAL_CLI_PATH'),
    temporalPort: integer(env, 'TEMPORAL_PORT', 7233),
    temporalUiPort: integer(env, 'TEMPORAL_UI_PORT', 8233),
    eurRates: parseRateTable(text(env, 'EXCHANGE_RATES_JSON')),
    defaultFeePercentage: text(env, 'DEFAULT_FEE_PERCENTAGE') ?? '1',
    maxBodyBytes: integer(env, 'MAX_BODY_BYTES', 64 * 1024),
    rateLimitPerSecond: integer(env, 'RATE_LIMIT_PER_SECOND', 50),
    rateLimitBurst: integer(env, 'RATE_LIMIT_BURST', 200),
    logLevel: logLevel as Settings['logLevel'],
    chainConfirmationDelayMs: integer(env, 'CHAIN_CONFIRMATION_DELAY_MS', 5_000),
    travelRuleDeadlineMs: integer(env, 'TRAVEL_RULE_DEADLINE_MS', 24 * 60 * 60 * 1000),
    travelRuleThresholdEur: text(env, 'TRAVEL_RULE_THRESHOLD_EUR') ?? '1000',
    denyListedAddresses: list(env, 'DENY_LIST_ADDRESSES'),
    bankSettlementDelayMs: integer(env, 'BANK_SETTLEMENT_DELAY_MS', 5_000),
    bankOutboxDir: path.resolve(projectRoot, text(env, 'BANK_OUTBOX_DIR') ?? path.join(text(env, 'DATA_DIR') ?? '.data', 'bank-outbox')),
    bankRejectIbans: list(env, 'SIMULATED_BANK_REJECT_IBANS'),
  };
}
