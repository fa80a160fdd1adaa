/**
 * Operator CLI: `npm run ops -- <command> [--flags]`. Prints one JSON object on stdout: the result; or {"error":…} with
 * exit code 1; or, for a usage mistake, {"error":"invalid-request",…,"usage"} with exit code 2. Logs go to stderr.
 * Without DATABASE_URL it uses `npm start`'s embedded Postgres, as payments_ops (the operators' role: no ledger table is
 * its to write, and its ledger calls go through the operator schema's checked functions). It never migrates.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { DomainError } from '../core/errors';
import { createLogger } from '../core/logger';
import type { Settings } from '../core/settings';
import { openOrm } from '../db/orm';
import { assertAppDatabaseReady } from '../db/database-readiness';
import { OperatorActionRefused } from '../operations/operator/operator-refusal';
import { recordOperatorAction } from '../db/services/operator-audit.service';
import type { Operator } from '../db/services/operator-audit.service';
import { configuredDatabaseUrls, ensurePostgres } from '../dev/embedded-postgres';
import { loadProcessSettings } from './process-support';
import { AUDIT_USAGE, auditCommands } from './audit.commands';
import { BANK_USAGE, bankCommands } from './bank.commands';
import { CHAIN_USAGE, chainCommands } from './chain.commands';
import { DEPOSIT_USAGE, depositCommands } from './deposit.commands';
import { SWEEP_USAGE, sweepCommands } from './sweep.commands';
import type { Command, OperatorCommand, TemporalAccess } from './ops-command';
import { CliFailure, commandLineOptions, parseCommandLine, parseFlags, UsageMistake } from './ops-command';
import { operatorOf, reasonOf } from './ops-operator';
import { connectTemporal } from './ops-temporal';
import { OPERATION_USAGE, operationCommands } from './operation.commands';
import { PARTNER_USAGE, partnerCommands } from './partner.commands';
import { KEY_USAGE, keyCommands } from './api-key.commands';
import { TRAVEL_RULE_USAGE, travelRuleCommands } from './travel-rule.commands';
import { WEBHOOK_USAGE, webhookCommands } from './webhook.commands';
import { RECONCILIATION_USAGE, reconciliationCommands } from './reconciliation.commands';

const USAGE = `usage: npm run ops -- <command>
  Every command that changes something writes one audit row with its effect, and takes
  [--reason TEXT] [--operator NAME] (the actor: --operator, else OPS_OPERATOR, else the OS user).
${PARTNER_USAGE}
${KEY_USAGE}
${DEPOSIT_USAGE}
${SWEEP_USAGE}
${BANK_USAGE}
${CHAIN_USAGE}
${OPERATION_USAGE}
${TRAVEL_RULE_USAGE}
${WEBHOOK_USAGE}
${RECONCILIATION_USAGE}
${AUDIT_USAGE}`;

/** Commands that only use the database, each in one transaction (with its audit row when it changes something). */
const databaseCommands: Record<string, Command> = {
  ...partnerCommands,
  ...keyCommands,
  ...depositCommands,
  ...sweepCommands,
  ...bankCommands,
  ...chainCommands,
  ...webhookCommands,
  ...reconciliationCommands,
  ...auditCommands,
};

/** Commands that read Temporal or act on a workflow as well as on the database; each writes its own audit row. */
const operatorCommands: Record<string, OperatorCommand> = { ...operationCommands, ...travelRuleCommands };

const COMMANDS: Record<string, Command | OperatorCommand> = { ...databaseCommands, ...operatorCommands };

const OPTIONS = commandLineOptions(Object.values(COMMANDS));

/** The command the positionals name (the longest name that starts them) and what follows its name. */
function commandOf(positionals: readonly string[]): { name: string; args: string[] } {
  for (const words of [2, 1]) {
    const name = positionals.slice(0, words).join(' ');
    if (positionals.length >= words && Object.hasOwn(COMMANDS, name)) return { name, args: positionals.slice(words) };
  }
  throw new UsageMistake(positionals.length === 0 ? 'no command given' : `unknown command "${positionals.join(' ')}"`);
}

function checkArguments(command: { takesArgument?: string }, args: readonly string[]): void {
  if (command.takesArgument === undefined) {
    if (args.length > 0) throw new UsageMistake(`unexpected argument "${args[0]}"`);
  } else if (args.length !== 1) {
    throw new UsageMistake(`expected exactly one ${command.takesArgument}`);
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
        flags: parseFlags(z.object(command.flags ?? {}), commandFlags),
        operator: operatorOf(operatorFlag as string | undefined, settings.operatorCli.operator),
        reason: reasonOf(reasonFlag as string | undefined),
      }
    : { flags: parseFlags(z.object(command.flags ?? {}), allFlags), operator: undefined, reason: null };
  const log = createLogger('ops', settings.logLevel === 'info' ? 'warn' : settings.logLevel);
  const postgres = await ensurePostgres({
    configured: configuredDatabaseUrls(settings),
    dataDir: settings.development.dataDir,
    port: settings.development.embeddedPostgresPort,
    host: settings.development.host,
    log,
  });
  let temporal: Promise<TemporalAccess> | undefined;
  try {
    // The operator's DATABASE_URL (payments_ops in production), else npm start's embedded database as payments_ops.
    const databaseUrl = configuredDatabaseUrls(settings) ? postgres.urls.appUrl : (postgres.urls.opsUrl ?? postgres.urls.appUrl);
    await assertAppDatabaseReady(databaseUrl);
    const orm = await openOrm(databaseUrl, 2);
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
    if (access && 'connection' in access) await access.close().catch(() => undefined);
    await postgres.stop();
  }
}

/** One transaction: the command's effect and, when it changes something, its one audit row. */
async function runDatabaseCommand(
  orm: MikroORM,
  command: Command,
  context: {
    flags: Record<string, unknown>;
    args: readonly string[];
    settings: Settings;
    operator: Operator | undefined;
    reason: string | null;
  },
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

/** What the CLI prints for a failure, and its exit code: 2 for a usage mistake, else 1. */
function failureOf(error: unknown): { body: object; code: 1 | 2 } {
  if (error instanceof UsageMistake) return { body: { error: error.kind, message: error.detail, usage: USAGE }, code: 2 };
  const body =
    error instanceof CliFailure
      ? error.body
      : error instanceof OperatorActionRefused
        ? { error: 'refused', reason: error.reason, message: error.message }
        : error instanceof DomainError
          ? { error: error.kind, message: error.detail }
          : { error: 'internal-error', message: error instanceof Error ? error.message : String(error) };
  return { body, code: 1 };
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const { body, code } = failureOf(error);
    process.stdout.write(`${JSON.stringify(body)}\n`);
    process.exit(code);
  },
);
