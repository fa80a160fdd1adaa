import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Client, Connection } from '@temporalio/client';
import { z } from 'zod';
import { DomainError } from '../core/errors';
import type { Settings } from '../core/settings';
import type { AuditEntry, Operator } from '../db/services/operator-audit.service';

/** The command line's flags as given, before a command's schema reads them. */
export type Flags = Readonly<Record<string, string | boolean | undefined>>;

/** A command's flags, each declared once, by name: the command line's options are derived from them. */
export type FlagShape = z.ZodRawShape;
type Input<Shape extends FlagShape> = z.output<z.ZodObject<Shape>>;

export interface ReadContext<Parsed = Record<string, unknown>> {
  /** In the command's transaction. */
  em: EntityManager;
  flags: Parsed;
  /** The positionals after the command's name (e.g. the ID of `deposit approve ID`). */
  args: readonly string[];
  now: Date;
  settings: Settings;
}

export interface WriteContext<Parsed = Record<string, unknown>> extends ReadContext<Parsed> {
  operator: Operator;
  /** `--reason TEXT`, checked; null when not given. */
  reason: string | null;
}

interface Declared<Shape extends FlagShape> {
  takesArgument?: string;
  flags?: Shape;
}

/** Database only: a write names its audit row, which main/ops.cli.ts writes in the same transaction as its effect. */
export type Command<Shape extends FlagShape = FlagShape> = Declared<Shape> &
  (
    | { changesState: false; run(context: ReadContext<Input<Shape>>): Promise<object> }
    | { changesState: true; run(context: WriteContext<Input<Shape>>): Promise<{ output: object; audit: AuditEntry }> }
  );

export type TemporalAccess =
  { address: string; client: Client; connection: Connection; close: () => Promise<void> } | { address: string; unreachable: string };

export interface OperatorContext<Parsed = Record<string, unknown>> {
  orm: MikroORM;
  flags: Parsed;
  /** The positionals after the command's name (e.g. the ID of `operation show ID`). */
  args: readonly string[];
  /** Connects on first use; never throws (an unreachable Temporal is an answer too). */
  temporal(): Promise<TemporalAccess>;
  /** Who runs a command that changes something (undefined for reads), and why. */
  operator: Operator | undefined;
  reason: string | null;
}

/** Reads Temporal or acts on a workflow as well, and writes its own audit row. */
export interface OperatorCommand<Shape extends FlagShape = FlagShape> extends Declared<Shape> {
  changesState: boolean;
  run(context: OperatorContext<Input<Shape>>): Promise<object>;
}

/** A database command whose `run` gets its flags typed by their schemas. */
export function command<Shape extends FlagShape = Record<never, never>>(declared: Command<Shape>): Command {
  return declared;
}

/** An operator command whose `run` gets its flags typed by their schemas. */
export function operatorCommand<Shape extends FlagShape = Record<never, never>>(declared: OperatorCommand<Shape>): OperatorCommand {
  return declared;
}

/** A failure the CLI reports as is: `{"error": code, "message", …}`. */
export class CliFailure extends Error {
  constructor(readonly body: { error: string; message: string } & Record<string, unknown>) {
    super(body.message);
  }
}

/** A command line that does not fit what the CLI declares: answered with the usage and exit code 2 (not 1). */
export class UsageMistake extends DomainError {
  constructor(detail: string) {
    super('invalid-request', detail);
  }
}

/** Runs a check of a command-line value written elsewhere (e.g. an id's format): its invalid request is a usage mistake. */
export function asUsageMistake<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'invalid-request') throw new UsageMistake(error.detail ?? error.message);
    throw error;
  }
}

/** A flag that must be given, and not blank. */
export const requiredText = z.string().trim().min(1, 'is required');

export const uuidFlag = z.uuid('must be a UUID');

/** `--limit N`: how many rows a list shows, a whole number from 1 to `max`. */
export function limitFlag(max: number) {
  const message = `must be a whole number from 1 to ${max}`;
  return z
    .string()
    .regex(/^\d{1,9}$/, message)
    .transform(Number)
    .refine((limit) => limit >= 1 && limit <= max, message)
    .optional();
}

type CommandLineOptions = Record<string, { type: 'string' | 'boolean' }>;

/** Every flag a command declares (a switch where boolean), plus --operator and --reason; a name must keep one type. */
export function commandLineOptions(commands: Iterable<{ flags?: FlagShape }>): CommandLineOptions {
  const options: CommandLineOptions = { operator: { type: 'string' }, reason: { type: 'string' } };
  for (const { flags } of commands) {
    for (const [name, schema] of Object.entries(flags ?? {})) {
      const inner = schema instanceof z.ZodOptional ? schema.unwrap() : schema;
      const type = inner instanceof z.ZodBoolean ? 'boolean' : 'string';
      if (options[name] && options[name].type !== type) throw new Error(`--${name} is declared both as a switch and with a value`);
      options[name] = { type };
    }
  }
  return options;
}

/** Only the flags a command declares, each in its format: a stray one (a typo, or --reason on a read) is a usage mistake, not ignored. */
export function parseFlags<Shape extends z.ZodRawShape>(schema: z.ZodObject<Shape>, flags: Flags): z.output<z.ZodObject<Shape>> {
  const given = Object.fromEntries(Object.entries(flags).filter(([, value]) => value !== undefined));
  const result = schema.strict().safeParse(given);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) =>
    issue.code === 'unrecognized_keys'
      ? `${issue.keys.map((key) => `--${key}`).join(', ')} does not apply here`
      : `--${issue.path.join('.')} ${issue.message}`,
  );
  throw new UsageMistake(problems.join('; '));
}

/** The command line as flags and positionals; an unknown flag or a missing value is a usage mistake naming it. */
export function parseCommandLine(
  argv: readonly string[],
  options: NonNullable<ParseArgsConfig['options']>,
): { flags: Flags; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
    return { flags: values as Flags, positionals };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const message = error instanceof Error ? error.message : String(error);
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const flag = /'([^']*)'/.exec(message)?.[1] ?? message;
      throw new UsageMistake(`unknown flag ${flag}`);
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') throw new UsageMistake(message.split('\n')[0]!);
    throw error;
  }
}
