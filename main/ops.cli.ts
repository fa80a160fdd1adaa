/**
 * Operator CLI: `npm run ops -- <command> [--flags]`. Prints exactly one JSON object on stdout
 * (the result, or {"error":…} with exit code 1); logs go to stderr. Without DATABASE_URL it
 * uses the embedded Postgres of `npm start` (reusing it when running, else starting it briefly).
 */
import fs from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { wrap } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { Client, Connection, WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { z } from 'zod';
import { describeWorkflow, isRunning } from '../activities/workflow-inspection';
import type { WorkflowState } from '../activities/workflow-inspection';
import { CURRENCIES } from '../core/currencies';
import { DomainError } from '../core/errors';
import { createLogger } from '../core/logger';
import type { Settings } from '../core/settings';
import { migrate, openOrm } from '../db/orm';
import { postDeposit } from '../db/services/deposit.service';
import {
  OperatorActionRefused,
  findOperation,
  isHandedOff,
  ledgerTransferOf,
  operationIdFrom,
  operatorActionsOf,
  recordOperatorAction,
  resolveOperation,
} from '../db/services/operation-resolution.service';
import type { OperationRecord, OperationType } from '../db/services/operation-resolution.service';
import { setFiatAccountStatus } from '../db/services/account.service';
import { createApiKey, revokeApiKey } from '../db/services/api-key.service';
import { createPartner } from '../db/services/partner.service';
import { upsertUser } from '../db/services/partner-user.service';
import { completeTravelRuleUpdate, cryptoWithdrawalContract, exchangeContract, sepaTransferContract } from '../contracts';
import type { TravelRuleCompletion } from '../contracts';
import type { WebhookTargetRules } from '../db/services/webhook-endpoint.service';
import { systemHostResolver } from '../core/webhook-target';
import { ensurePostgres } from '../dev/embedded-postgres';
import { temporalConnectionOptions, temporalDataConverter } from '../core/temporal-connection';
import { withDevelopmentPayloadKey } from './development-payload-key';
import { loadProcessSettings } from './process-support';
import { WEBHOOK_USAGE, webhookCommands } from './webhook.commands';
import { RECONCILIATION_USAGE, reconciliationCommands } from './reconciliation.commands';

const USAGE = `usage: npm run ops -- <command>
  partner create --name NAME [--fee-percentage P]
  key create --partner ID
  key revoke --key API_KEY_ID
  account set-status --partner ID --currency eur --status ACTIVE|WAITING_TO_BE_ACTIVATED
  user upsert --partner ID --external-user-id X --email E --first-name F --last-name L --address A
              --city C --country CC --document-type T --document-number N
              [--pesel P] [--birth-country CC] [--birth-date YYYY-MM-DD]
  deposit --partner ID --currency C --amount A [--type sepaDeposit|fiatDeposit|cryptoDeposit]
  operation show ID                      (ID: the operation id, or its workflow id)
  operation resolve ID --release|--settle --reason TEXT [--operator NAME]
  travel-rule complete --withdrawal ID --completed-by EMAIL [--beneficiary-json FILE] [--reason TEXT]
${WEBHOOK_USAGE}
${RECONCILIATION_USAGE}`;

const OPTIONS = {
  name: { type: 'string' },
  'fee-percentage': { type: 'string' },
  partner: { type: 'string' },
  key: { type: 'string' },
  currency: { type: 'string' },
  status: { type: 'string' },
  'external-user-id': { type: 'string' },
  email: { type: 'string' },
  'first-name': { type: 'string' },
  'last-name': { type: 'string' },
  address: { type: 'string' },
  city: { type: 'string' },
  country: { type: 'string' },
  'document-type': { type: 'string' },
  'document-number': { type: 'string' },
  pesel: { type: 'string' },
  'birth-country': { type: 'string' },
  'birth-date': { type: 'string' },
  amount: { type: 'string' },
  type: { type: 'string' },
  release: { type: 'boolean' },
  settle: { type: 'boolean' },
  reason: { type: 'string' },
  operator: { type: 'string' },
  withdrawal: { type: 'string' },
  'completed-by': { type: 'string' },
  'beneficiary-json': { type: 'string' },
  url: { type: 'string' },
  limit: { type: 'string' },
} as const;

type Flags = { [Name in keyof typeof OPTIONS]?: (typeof OPTIONS)[Name]['type'] extends 'boolean' ? boolean : string };

const uuid = z.uuid('must be a UUID');
const decimalText = z.string().regex(/^\d+(\.\d+)?$/, 'must be a plain decimal, e.g. 12.5');
const countryCode = z.string().regex(/^[A-Z]{2}$/, 'must be a two-letter country code, e.g. PL');
const required = z.string().trim().min(1, 'is required');

/** Commands that only write to the database, each in one transaction. */
const databaseCommands: Record<
  string,
  (em: EntityManager, flags: Flags, now: Date, defaults: { feePercentage: string; webhookTargets: WebhookTargetRules }) => Promise<object>
> = {
  async 'partner create'(em, flags, now, defaults) {
    const input = parse(z.object({ name: required.max(200), 'fee-percentage': decimalText.optional() }), flags);
    const partner = await createPartner(em, { name: input.name, feePercentage: input['fee-percentage'] ?? defaults.feePercentage }, now);
    const key = await createApiKey(em, partner.id, now);
    return { partnerId: partner.id, apiKey: key.apiKey };
  },
  async 'key create'(em, flags, now) {
    const input = parse(z.object({ partner: uuid }), flags);
    return createApiKey(em, input.partner, now);
  },
  async 'key revoke'(em, flags, now) {
    const input = parse(z.object({ key: uuid }), flags);
    const key = await revokeApiKey(em, input.key, now);
    return { apiKeyId: key.id, revokedAt: key.revokedAt?.toISOString() };
  },
  async 'account set-status'(em, flags) {
    const input = parse(
      z.object({ partner: uuid, currency: z.enum(['eur']), status: z.enum(['ACTIVE', 'WAITING_TO_BE_ACTIVATED']) }),
      flags,
    );
    const account = await setFiatAccountStatus(em, input.partner, input.currency, input.status);
    return { accountId: account.id, currency: account.currency, status: account.fiatStatus };
  },
  async 'user upsert'(em, flags, now) {
    const input = parse(
      z.object({
        partner: uuid,
        'external-user-id': required.max(255),
        email: z.email('must be an email address'),
        'first-name': required,
        'last-name': required,
        address: required,
        city: required,
        country: countryCode,
        'document-type': required,
        'document-number': required,
        pesel: z
          .string()
          .regex(/^\d{11}$/, 'must be 11 digits')
          .optional(),
        'birth-country': countryCode.optional(),
        'birth-date': z.iso.date('must be YYYY-MM-DD').optional(),
      }),
      flags,
    );
    const user = await upsertUser(
      em,
      input.partner,
      {
        externalUserId: input['external-user-id'],
        email: input.email,
        firstName: input['first-name'],
        lastName: input['last-name'],
        address: input.address,
        city: input.city,
        country: input.country,
        documentType: input['document-type'],
        documentNumber: input['document-number'],
        pesel: input.pesel ?? null,
        birthCountry: input['birth-country'] ?? null,
        birthDate: input['birth-date'] ?? null,
      },
      now,
    );
    return { userId: user.id };
  },
  async deposit(em, flags, now) {
    const input = parse(
      z.object({
        partner: uuid,
        currency: z.enum(CURRENCIES),
        amount: decimalText,
        type: z.enum(['sepaDeposit', 'fiatDeposit', 'cryptoDeposit']).optional(),
      }),
      flags,
    );
    const type = input.type ?? (input.currency === 'eur' ? 'sepaDeposit' : 'cryptoDeposit');
    const deposit = await postDeposit(em, { partnerId: input.partner, currency: input.currency, amount: input.amount, type }, now);
    return { transactionId: deposit.id };
  },
  ...webhookCommands,
  ...reconciliationCommands,
};

function parse<Schema extends z.ZodType>(schema: Schema, flags: Flags): z.output<Schema> {
  const result = schema.safeParse(flags);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `--${issue.path.join('.')} ${issue.message}`);
  throw new DomainError('invalid-request', problems.join('; '));
}

/** A failure the CLI reports as is: `{"error": code, "message", …}`. */
class CliFailure extends Error {
  constructor(readonly body: { error: string; message: string } & Record<string, unknown>) {
    super(body.message);
  }
}

type TemporalAccess = { address: string; client: Client; connection: Connection } | { address: string; unreachable: string };

interface OperatorContext {
  orm: MikroORM;
  flags: Flags;
  /** The positionals after the command's name (e.g. the ID of `operation show ID`). */
  args: string[];
  /** Connects on first use; never throws (an unreachable Temporal is an answer too). */
  temporal(): Promise<TemporalAccess>;
}

/** How long the CLI waits for a workflow to answer an Update before saying it got no answer. */
const UPDATE_DEADLINE_MS = 60_000;

const workflowIdOf = (type: OperationType, id: string): string =>
  type === 'crypto-withdrawal'
    ? cryptoWithdrawalContract.workflowId(id)
    : type === 'sepa-transfer'
      ? sepaTransferContract.workflowId(id)
      : exchangeContract.workflowId(id);

async function workflowStateOf(context: OperatorContext, workflowId: string): Promise<WorkflowState> {
  const temporal = await context.temporal();
  if ('unreachable' in temporal) return { workflowId, found: false, reason: 'unreachable', message: temporal.unreachable };
  return describeWorkflow(temporal.client, workflowId, { unreachableAsState: true });
}

/** The operation's row for operators; the travel-rule data (personal data) only as a summary. */
function operationView(operation: OperationRecord): Record<string, unknown> {
  const { travelRule, ...row } = wrap(operation.row).toObject() as Record<string, unknown>;
  if (operation.type === 'exchange') return row;
  const view: Record<string, unknown> = { ...row, handedOff: isHandedOff(operation) };
  if (operation.type === 'crypto-withdrawal') {
    const data = travelRule as { requiresCompletion?: unknown; completion?: Record<string, unknown> } | null;
    view.travelRule = data && {
      requiresCompletion: data.requiresCompletion ?? null,
      completion: data.completion
        ? {
            completedBy: data.completion.completedBy ?? null,
            completedAt: data.completion.completedAt ?? null,
            beneficiaryProvided: data.completion.beneficiary !== undefined,
          }
        : null,
    };
  }
  return view;
}

function operatorName(flag: string | undefined): string {
  const name = flag ?? process.env.OPS_OPERATOR ?? systemUserName();
  const trimmed = name?.trim();
  if (!trimmed) throw new DomainError('invalid-request', '--operator is required (or set OPS_OPERATOR)');
  if (trimmed.length > 200) throw new DomainError('invalid-request', '--operator must be at most 200 characters');
  return trimmed;
}

function systemUserName(): string | undefined {
  try {
    return os.userInfo().username;
  } catch {
    return process.env.USER;
  }
}

function onlyPositional(context: OperatorContext, what: string): string {
  const [value, ...extra] = context.args;
  if (value === undefined || extra.length > 0) throw new DomainError('invalid-request', `expected exactly one ${what}\n${USAGE}`);
  return value;
}

function readBeneficiaryJson(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new DomainError(
      'invalid-request',
      `--beneficiary-json cannot be read: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new DomainError('invalid-request', `--beneficiary-json is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Commands that read Temporal or act on a workflow as well as on the database. */
const operatorCommands: Record<string, (context: OperatorContext) => Promise<object>> = {
  async 'operation show'(context) {
    const id = operationIdFrom(onlyPositional(context, 'operation ID'));
    const em = context.orm.em.fork();
    const operation = await findOperation(em, id);
    if (!operation) throw new DomainError('not-found', `no crypto withdrawal, SEPA transfer or exchange has the id ${id}`);
    const [ledgerTransfer, operatorActions] = await Promise.all([ledgerTransferOf(em.fork(), id), operatorActionsOf(em.fork(), id)]);
    const workflow = await workflowStateOf(context, workflowIdOf(operation.type, id));
    return { type: operation.type, operation: operationView(operation), ledgerTransfer, operatorActions, workflow };
  },

  async 'operation resolve'(context) {
    const id = operationIdFrom(onlyPositional(context, 'operation ID'));
    const input = parse(
      z.object({
        release: z.boolean().optional(),
        settle: z.boolean().optional(),
        reason: required.max(1000, 'must be at most 1000 characters'),
        operator: z.string().optional(),
      }),
      context.flags,
    );
    if (Boolean(input.release) === Boolean(input.settle))
      throw new DomainError('invalid-request', 'give exactly one of --release or --settle');
    const actor = operatorName(input.operator);
    const temporal = await context.temporal();
    return context.orm.em.fork().transactional((em) =>
      resolveOperation(
        em,
        { operationId: id, action: input.release ? 'release' : 'settle', reason: input.reason, actor },
        new Date(),
        async (operation) => {
          const workflowId = workflowIdOf(operation.type, operation.id);
          const state: WorkflowState =
            'unreachable' in temporal
              ? { workflowId, found: false, reason: 'unreachable', message: temporal.unreachable }
              : await describeWorkflow(temporal.client, workflowId, { unreachableAsState: true });
          if (!state.found && state.reason === 'unreachable') {
            throw new OperatorActionRefused(
              'temporal-unreachable',
              `${state.message}; refusing to resolve without knowing that no workflow still acts on ${workflowId}`,
            );
          }
          if (isRunning(state)) {
            throw new OperatorActionRefused(
              'workflow-running',
              `its workflow ${workflowId} is still running: cancel it (before the hand-off that releases the funds itself) or terminate it first, ` +
                `in the Temporal UI or with: temporal workflow terminate --workflow-id ${workflowId} --reason "…"`,
            );
          }
          return state.found
            ? { workflowId, runId: state.runId, status: state.status, closeTime: state.closeTime }
            : { workflowId, status: 'NOT_FOUND' };
        },
      ),
    );
  },

  async 'travel-rule complete'(context) {
    if (context.args.length > 0) throw new DomainError('invalid-request', `unexpected argument "${context.args[0]}"\n${USAGE}`);
    const input = parse(
      z.object({
        withdrawal: required,
        'completed-by': required,
        'beneficiary-json': required.optional(),
        reason: required.max(1000, 'must be at most 1000 characters').optional(),
      }),
      context.flags,
    );
    const id = operationIdFrom(input.withdrawal);
    const operation = await findOperation(context.orm.em.fork(), id);
    if (operation?.type !== 'crypto-withdrawal') throw new DomainError('not-found', `no crypto withdrawal has the id ${id}`);
    const completedBy = input['completed-by'].trim();
    const beneficiary = input['beneficiary-json'] === undefined ? undefined : readBeneficiaryJson(input['beneficiary-json']);
    // Sent as given: the workflow's validator is the one judge of a completion.
    const completion = { completedBy, ...(beneficiary === undefined ? {} : { beneficiary }) } as TravelRuleCompletion;
    const temporal = await context.temporal();
    if ('unreachable' in temporal) throw new DomainError('service-unavailable', temporal.unreachable);
    const workflowId = cryptoWithdrawalContract.workflowId(id);
    let result: unknown;
    try {
      result = await temporal.connection.withDeadline(Date.now() + UPDATE_DEADLINE_MS, () =>
        temporal.client.workflow.getHandle(workflowId).executeUpdate(completeTravelRuleUpdate, { args: [completion] }),
      );
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError) {
        throw new DomainError('invalid-request', error.cause?.message ?? error.message);
      }
      if (error instanceof WorkflowNotFoundError) {
        throw new CliFailure({ error: 'workflow-not-running', message: `${workflowId} is not running (closed or gone): ${error.message}` });
      }
      if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError || (error as { code?: unknown }).code === 4) {
        throw new CliFailure({
          error: 'service-unavailable',
          message: `no answer from ${workflowId} within ${UPDATE_DEADLINE_MS / 1000} s (is a worker running?); the completion may still be applied: see operation show`,
        });
      }
      throw error;
    }
    const operatorActionId = await context.orm.em.fork().transactional((em) =>
      recordOperatorAction(
        em,
        {
          operationId: id,
          operationType: 'crypto-withdrawal',
          action: 'travel-rule-complete',
          actor: completedBy.slice(0, 200),
          reason: input.reason ?? 'travel-rule data completed',
          details: { workflowId, completedBy, beneficiaryProvided: beneficiary !== undefined, result },
        },
        new Date(),
      ),
    );
    return { withdrawalId: id, workflowId, result, operatorActionId };
  },
};

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ args: process.argv.slice(2), options: OPTIONS, allowPositionals: true, strict: true });
  const flags: Flags = values;
  const operatorCommandName = Object.keys(operatorCommands).find((name) => positionals.slice(0, 2).join(' ') === name);
  const name = operatorCommandName ?? positionals.join(' ');
  const databaseCommand = databaseCommands[name];
  if (!operatorCommandName && !databaseCommand) throw new DomainError('invalid-request', `unknown command "${name}"\n${USAGE}`);
  const settings = loadProcessSettings();
  const log = createLogger('ops', settings.logLevel === 'info' ? 'warn' : settings.logLevel);
  const postgres = await ensurePostgres({
    databaseUrl: settings.databaseUrl,
    dataDir: settings.development.dataDir,
    port: settings.development.embeddedPostgresPort,
    log,
  });
  let temporal: Promise<TemporalAccess> | undefined;
  try {
    await migrate(postgres.url);
    const orm = await openOrm(postgres.url, 2);
    try {
      const result = operatorCommandName
        ? await operatorCommands[operatorCommandName]!({
            orm,
            flags,
            args: positionals.slice(2),
            temporal: () => (temporal ??= connectTemporal(settings)),
          })
        : await orm.em.fork().transactional((em) =>
            databaseCommand!(em, flags, new Date(), {
              feePercentage: settings.defaultFeePercentage,
              webhookTargets: webhookTargets(settings),
            }),
          );
      process.stdout.write(`${JSON.stringify(result)}\n`);
      return 0;
    } finally {
      await orm.close(true);
    }
  } finally {
    const access = await temporal;
    if (access && 'connection' in access) await access.connection.close().catch(() => undefined);
    await postgres.stop();
  }
}

/**
 * Where `webhook set` lets events go. Without DATABASE_URL the CLI works on the embedded Postgres
 * of `npm start`, whose worker delivers to loopback receivers: registration follows it.
 */
function webhookTargets(settings: Settings): WebhookTargetRules {
  return { policy: { allowLoopback: settings.webhookAllowLoopback || settings.databaseUrl === undefined }, resolve: systemHostResolver };
}

/** TEMPORAL_ADDRESS, else the dev server `npm start` runs on TEMPORAL_PORT. */
async function connectTemporal(settings: Settings): Promise<TemporalAccess> {
  const address = settings.temporalAddress ?? `127.0.0.1:${settings.development.temporalPort}`;
  try {
    const access = withDevelopmentPayloadKey(settings, { create: false }).temporal;
    // Against a configured Temporal (production) the CLI writes payloads (travel-rule data): never in clear.
    if (settings.temporalAddress && !access.payloadKeys)
      return { address, unreachable: 'PAYLOAD_ENCRYPTION_KEYS must be set to talk to a configured Temporal (TEMPORAL_ADDRESS)' };
    const connection = await Connection.connect({ ...temporalConnectionOptions(address, access), connectTimeout: '5 seconds' });
    return {
      address,
      connection,
      client: new Client({ connection, namespace: settings.temporalNamespace, dataConverter: temporalDataConverter(access) }),
    };
  } catch (error) {
    return { address, unreachable: `Temporal at ${address} cannot be reached (${error instanceof Error ? error.message : String(error)})` };
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const body =
      error instanceof CliFailure
        ? error.body
        : error instanceof OperatorActionRefused
          ? { error: 'refused', reason: error.reason, message: error.message }
          : error instanceof DomainError
            ? { error: error.kind, message: error.detail }
            : { error: 'internal-error', message: error instanceof Error ? error.message : String(error) };
    process.stdout.write(`${JSON.stringify(body)}\n`);
    process.exit(1);
  },
);
