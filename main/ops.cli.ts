/**
 * Operator CLI: `npm run ops -- <command> [--flags]`. Prints exactly one JSON object on stdout
 * (the result, or {"error":…} with exit code 1); logs go to stderr. Without DATABASE_URL it
 * uses the embedded Postgres of `npm start` (reusing it when running, else starting it briefly).
 * It connects as payments_app, like the API and the worker, and never migrates.
 */
import fs from 'node:fs';
import { wrap } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Client, Connection, WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { z } from 'zod';
import { describeWorkflow, isRunning } from '../activities/workflow-inspection';
import type { WorkflowState } from '../activities/workflow-inspection';
import { DomainError } from '../core/errors';
import { createLogger } from '../core/logger';
import type { Settings } from '../core/settings';
import { parseTravelRuleCompletion } from '../core/travel-rule-completion';
import { travelRuleCompletionDigest } from '../core/travel-rule-completion-digest';
import { openOrm } from '../db/orm';
import { assertAppDatabaseReady } from '../db/database-readiness';
import { findPartnerAccount } from '../db/ledger/accounts';
import {
  OperatorActionRefused,
  findOperation,
  isHandedOff,
  ledgerTransferOf,
  operationIdFrom,
  operatorActionsOf,
  resolveOperation,
} from '../db/services/operation-resolution.service';
import { recordOperatorAction } from '../db/services/operator-audit.service';
import type { Operator } from '../db/services/operator-audit.service';
import type { OperationRecord, OperationType } from '../db/services/operation-resolution.service';
import { setFiatAccountStatus } from '../db/services/account.service';
import { createApiKey, revokeApiKey } from '../db/services/api-key.service';
import { createPartner } from '../db/services/partner.service';
import { upsertUser } from '../db/services/partner-user.service';
import { completeTravelRuleUpdate, cryptoWithdrawalContract, exchangeContract, sepaTransferContract } from '../contracts';
import { configuredDatabaseUrls, ensurePostgres } from '../dev/embedded-postgres';
import { temporalConnectionOptions, temporalDataConverter } from '../core/temporal-connection';
import { withDevelopmentPayloadKey } from './development-payload-key';
import { loadProcessSettings } from './process-support';
import { AUDIT_USAGE, auditCommands } from './audit.commands';
import { DEPOSIT_USAGE, depositCommands } from './deposit.commands';
import type { Command, Flags } from './ops-command';
import { parseCommandLine, parseFlags } from './ops-command';
import { operatorOf, reasonOf } from './ops-operator';
import { WEBHOOK_USAGE, webhookCommands } from './webhook.commands';
import { RECONCILIATION_USAGE, reconciliationCommands } from './reconciliation.commands';

const USAGE = `usage: npm run ops -- <command>
  Every command that changes something writes one audit row with its effect, and takes
  [--reason TEXT] [--operator NAME] (the actor: --operator, else OPS_OPERATOR, else the OS user).
  partner create --name NAME [--fee-percentage P]
  key create --partner ID
  key revoke --key API_KEY_ID
  account set-status --partner ID --currency eur --status ACTIVE|WAITING_TO_BE_ACTIVATED
  user upsert --partner ID --external-user-id X --email E --first-name F --last-name L --address A
              --city C --country CC --document-type T --document-number N
              [--pesel P] [--birth-country CC] [--birth-date YYYY-MM-DD]
${DEPOSIT_USAGE}
  operation show ID                      (ID: the operation id, or its workflow id)
  operation resolve ID --release|--settle --reason TEXT
  travel-rule complete --withdrawal ID --completed-by EMAIL [--beneficiary-json FILE]
${WEBHOOK_USAGE}
${RECONCILIATION_USAGE}
${AUDIT_USAGE}`;

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
  action: { type: 'string' },
} as const;

const uuid = z.uuid('must be a UUID');
const decimalText = z.string().regex(/^\d+(\.\d+)?$/, 'must be a plain decimal, e.g. 12.5');
const countryCode = z.string().regex(/^[A-Z]{2}$/, 'must be a two-letter country code, e.g. PL');
const required = z.string().trim().min(1, 'is required');

/** Commands that only use the database, each in one transaction (with its audit row when it changes something). */
const databaseCommands: Record<string, Command> = {
  'partner create': {
    changesState: true,
    async run({ em, flags, now, settings }) {
      const input = parseFlags(z.object({ name: required.max(200), 'fee-percentage': decimalText.optional() }), flags);
      const feePercentage = input['fee-percentage'] ?? settings.defaultFeePercentage;
      const partner = await createPartner(em, { name: input.name, feePercentage }, now);
      const key = await createApiKey(em, partner.id, now);
      return {
        output: { partnerId: partner.id, apiKey: key.apiKey },
        audit: {
          action: 'partner-create',
          subject: { type: 'partner', id: partner.id, partnerId: partner.id },
          details: { name: partner.name, feePercentage, apiKeyId: key.apiKeyId },
        },
      };
    },
  },
  'key create': {
    changesState: true,
    async run({ em, flags, now }) {
      const input = parseFlags(z.object({ partner: uuid }), flags);
      const key = await createApiKey(em, input.partner, now);
      return { output: key, audit: { action: 'key-create', subject: { type: 'api-key', id: key.apiKeyId, partnerId: input.partner } } };
    },
  },
  'key revoke': {
    changesState: true,
    async run({ em, flags, now }) {
      const input = parseFlags(z.object({ key: uuid }), flags);
      const key = await revokeApiKey(em, input.key, now);
      const revokedAt = key.revokedAt?.toISOString();
      return {
        output: { apiKeyId: key.id, revokedAt },
        audit: {
          action: 'key-revoke',
          subject: { type: 'api-key', id: key.id, partnerId: key.partnerId },
          details: { revokedAt, alreadyRevoked: key.revokedAt?.getTime() !== now.getTime() },
        },
      };
    },
  },
  'account set-status': {
    changesState: true,
    async run({ em, flags }) {
      const input = parseFlags(
        z.object({ partner: uuid, currency: z.enum(['eur']), status: z.enum(['ACTIVE', 'WAITING_TO_BE_ACTIVATED']) }),
        flags,
      );
      const previous = (await findPartnerAccount(em, input.partner, input.currency))?.fiatStatus ?? null;
      const account = await setFiatAccountStatus(em, input.partner, input.currency, input.status);
      return {
        output: { accountId: account.id, currency: account.currency, status: account.fiatStatus },
        audit: {
          action: 'account-set-status',
          subject: { type: 'account', id: account.id, partnerId: input.partner },
          details: { currency: account.currency, from: previous, to: account.fiatStatus },
        },
      };
    },
  },
  'user upsert': {
    changesState: true,
    async run({ em, flags, now }) {
      const input = parseFlags(
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
      return {
        output: { userId: user.id },
        audit: {
          action: 'user-upsert',
          subject: { type: 'partner-user', id: user.id, partnerId: input.partner },
          // The partner's id for its user; the KYC fields themselves are personal data and stay out.
          details: { externalUserId: user.externalUserId, created: user.createdAt.getTime() === now.getTime() },
        },
      };
    },
  },
  ...depositCommands,
  ...webhookCommands,
  ...reconciliationCommands,
  ...auditCommands,
};

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
  args: readonly string[];
  /** Connects on first use; never throws (an unreachable Temporal is an answer too). */
  temporal(): Promise<TemporalAccess>;
  /** Who runs a command that changes something (undefined for reads), and why. */
  operator: Operator | undefined;
  reason: string | null;
}

/** Commands that read Temporal or act on a workflow as well as on the database; each writes its own audit row. */
interface OperatorCommand {
  changesState: boolean;
  takesArgument?: string;
  run(context: OperatorContext): Promise<object>;
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

const operatorCommands: Record<string, OperatorCommand> = {
  'operation show': {
    changesState: false,
    takesArgument: 'operation ID',
    async run(context) {
      parseFlags(z.object({}), context.flags);
      const id = operationIdFrom(context.args[0]!);
      const em = context.orm.em.fork();
      const operation = await findOperation(em, id);
      if (!operation) throw new DomainError('not-found', `no crypto withdrawal, SEPA transfer or exchange has the id ${id}`);
      const [ledgerTransfer, operatorActions] = await Promise.all([ledgerTransferOf(em.fork(), id), operatorActionsOf(em.fork(), id)]);
      const workflow = await workflowStateOf(context, workflowIdOf(operation.type, id));
      return { type: operation.type, operation: operationView(operation), ledgerTransfer, operatorActions, workflow };
    },
  },

  'operation resolve': {
    changesState: true,
    takesArgument: 'operation ID',
    async run(context) {
      const id = operationIdFrom(context.args[0]!);
      const input = parseFlags(z.object({ release: z.boolean().optional(), settle: z.boolean().optional() }), context.flags);
      if (Boolean(input.release) === Boolean(input.settle))
        throw new DomainError('invalid-request', 'give exactly one of --release or --settle');
      if (context.reason === null)
        throw new DomainError('invalid-request', '--reason is required: say why the operation is closed by hand');
      const reason = context.reason;
      const operator = context.operator!;
      const temporal = await context.temporal();
      return context.orm.em.fork().transactional((em) =>
        resolveOperation(
          em,
          { operationId: id, action: input.release ? 'release' : 'settle', reason, ...operator },
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
  },

  /**
   * Checks everything it can first (the completion is valid, the withdrawal waits for it, its
   * workflow runs), then commits the audit row, then sends the Update naming that row: the
   * workflow acts only on a completion whose row exists, so an Update sent any other way changes
   * nothing. A row whose Update then fails stays unused, and the failure names it.
   */
  'travel-rule complete': {
    changesState: true,
    async run(context) {
      const input = parseFlags(
        z.object({ withdrawal: required, 'completed-by': required, 'beneficiary-json': required.optional() }),
        context.flags,
      );
      const operator = context.operator!;
      const id = operationIdFrom(input.withdrawal);
      const operation = await findOperation(context.orm.em.fork(), id);
      if (operation?.type !== 'crypto-withdrawal') throw new DomainError('not-found', `no crypto withdrawal has the id ${id}`);
      const beneficiary = input['beneficiary-json'] === undefined ? undefined : readBeneficiaryJson(input['beneficiary-json']);
      // The workflow's own validator, so nothing is recorded for a completion it would refuse; what
      // is sent and digested is the completion as it reads it.
      const parsed = parseTravelRuleCompletion({
        completedBy: input['completed-by'],
        ...(beneficiary === undefined ? {} : { beneficiary }),
      });
      if ('problems' in parsed) throw new DomainError('invalid-request', parsed.problems);
      const completion = parsed.completion;
      const workflowId = cryptoWithdrawalContract.workflowId(id);
      if (operation.row.status !== 'IN_PROGRESS_TR_DATA') {
        throw new OperatorActionRefused(
          'not-awaiting-travel-rule-data',
          `withdrawal ${id} is ${operation.row.status} (stage ${operation.row.stage}), not waiting for travel-rule data`,
        );
      }
      const temporal = await context.temporal();
      if ('unreachable' in temporal) throw new DomainError('service-unavailable', temporal.unreachable);
      const state = await describeWorkflow(temporal.client, workflowId, { unreachableAsState: true });
      if (!isRunning(state)) {
        if (!state.found && state.reason === 'unreachable') throw new DomainError('service-unavailable', state.message);
        const status = state.found ? state.status : 'not found';
        throw new CliFailure({
          error: 'workflow-not-running',
          message: `${workflowId} is not running (${status}): nothing was recorded or sent`,
        });
      }
      const operatorActionId = await context.orm.em.fork().transactional((em) =>
        recordOperatorAction(
          em,
          operator,
          {
            action: 'travel-rule-complete',
            subject: { type: 'operation', id, operationType: 'crypto-withdrawal', partnerId: operation.row.partnerId },
            reason: context.reason,
            details: {
              workflowId,
              completedBy: completion.completedBy,
              beneficiaryProvided: completion.beneficiary !== undefined,
              completionDigest: travelRuleCompletionDigest(completion),
            },
          },
          new Date(),
        ),
      );
      const failed = (error: string, message: string) =>
        new CliFailure({ error, message: `${message} (operator action ${operatorActionId} stays unused)`, operatorActionId });
      let result: unknown;
      try {
        result = await temporal.connection.withDeadline(Date.now() + UPDATE_DEADLINE_MS, () =>
          temporal.client.workflow.getHandle(workflowId).executeUpdate(completeTravelRuleUpdate, {
            args: [{ ...completion, operatorActionId }],
          }),
        );
      } catch (error) {
        if (error instanceof WorkflowUpdateFailedError) throw failed('invalid-request', error.cause?.message ?? error.message);
        if (error instanceof WorkflowNotFoundError)
          throw failed('workflow-not-running', `${workflowId} is not running (closed or gone): ${error.message}`);
        if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError || (error as { code?: unknown }).code === 4) {
          throw new CliFailure({
            error: 'service-unavailable',
            message: `no answer from ${workflowId} within ${UPDATE_DEADLINE_MS / 1000} s (is a worker running?); the completion may still be applied: see operation show`,
            operatorActionId,
          });
        }
        throw failed('internal-error', error instanceof Error ? error.message : String(error));
      }
      return { withdrawalId: id, workflowId, result, operatorActionId };
    },
  },
};

const COMMANDS: Record<string, Command | OperatorCommand> = { ...databaseCommands, ...operatorCommands };

/** The command the positionals name (the longest name that starts them) and what follows its name. */
function commandOf(positionals: readonly string[]): { name: string; args: string[] } {
  for (const words of [2, 1]) {
    const name = positionals.slice(0, words).join(' ');
    if (positionals.length >= words && Object.hasOwn(COMMANDS, name)) return { name, args: positionals.slice(words) };
  }
  throw new DomainError('invalid-request', `unknown command "${positionals.join(' ')}"\n${USAGE}`);
}

function checkArguments(command: { takesArgument?: string }, args: readonly string[]): void {
  if (command.takesArgument === undefined) {
    if (args.length > 0) throw new DomainError('invalid-request', `unexpected argument "${args[0]}"\n${USAGE}`);
  } else if (args.length !== 1) {
    throw new DomainError('invalid-request', `expected exactly one ${command.takesArgument}\n${USAGE}`);
  }
}

async function main(): Promise<number> {
  const { flags: allFlags, positionals } = parseCommandLine(process.argv.slice(2), OPTIONS);
  const { name, args } = commandOf(positionals);
  const command = COMMANDS[name]!;
  checkArguments(command, args);
  const settings = loadProcessSettings();
  // A command that changes something takes the operator and the reason; a read refuses them like any stray flag.
  const { operator: operatorFlag, reason: reasonFlag, ...commandFlags } = allFlags;
  const changes = command.changesState
    ? {
        flags: commandFlags,
        operator: operatorOf(operatorFlag as string | undefined, settings.operatorCli.operator),
        reason: reasonOf(reasonFlag as string | undefined),
      }
    : { flags: allFlags, operator: undefined, reason: null };
  const log = createLogger('ops', settings.logLevel === 'info' ? 'warn' : settings.logLevel);
  const postgres = await ensurePostgres({
    configured: configuredDatabaseUrls(settings),
    dataDir: settings.development.dataDir,
    port: settings.development.embeddedPostgresPort,
    log,
  });
  let temporal: Promise<TemporalAccess> | undefined;
  try {
    await assertAppDatabaseReady(postgres.urls.appUrl);
    const orm = await openOrm(postgres.urls.appUrl, 2);
    try {
      const result = Object.hasOwn(operatorCommands, name)
        ? await operatorCommands[name]!.run({ orm, args, temporal: () => (temporal ??= connectTemporal(settings)), ...changes })
        : await runDatabaseCommand(orm, databaseCommands[name]!, { args, settings, ...changes });
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

/** One transaction: the command's effect and, when it changes something, its one audit row. */
async function runDatabaseCommand(
  orm: MikroORM,
  command: Command,
  context: { flags: Flags; args: readonly string[]; settings: Settings; operator: Operator | undefined; reason: string | null },
): Promise<object> {
  const now = new Date();
  return orm.em.fork().transactional(async (em) => {
    if (!command.changesState) return command.run({ em, flags: context.flags, args: context.args, now, settings: context.settings });
    const operator = context.operator!;
    const { output, audit } = await command.run({ em, ...context, operator, now });
    await recordOperatorAction(em, operator, { ...audit, reason: context.reason }, now);
    return output;
  });
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
