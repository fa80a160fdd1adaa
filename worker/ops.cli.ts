/**
 * Operator CLI: `npm run ops -- <command> [--flags]`. Prints exactly one JSON object on stdout
 * (the result, or {"error":…} with exit code 1); logs go to stderr. Without DATABASE_URL it
 * uses the embedded Postgres of `npm start` (reusing it when running, else starting it briefly).
 */
import { parseArgs } from 'node:util';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { CURRENCIES } from '../core/currencies';
import { DomainError } from '../core/errors';
import { createLogger } from '../core/logger';
import { migrate, openOrm } from '../db/orm';
import { postDeposit } from '../db/services/deposit.service';
import { createApiKey, createPartner, revokeApiKey, setFiatAccountStatus, upsertUser } from '../db/services/partner.service';
import { ensurePostgres } from './infrastructure/postgres';
import { loadProcessSettings } from './main-support';

const USAGE = `usage: npm run ops -- <command>
  partner create --name NAME [--fee-percentage P]
  key create --partner ID
  key revoke --key API_KEY_ID
  account set-status --partner ID --currency eur --status ACTIVE|WAITING_TO_BE_ACTIVATED
  user upsert --partner ID --external-user-id X --email E --first-name F --last-name L --address A
              --city C --country CC --document-type T --document-number N
              [--pesel P] [--birth-country CC] [--birth-date YYYY-MM-DD]
  deposit --partner ID --currency C --amount A [--type sepaDeposit|fiatDeposit|cryptoDeposit]`;

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
} as const;

type Flags = Partial<Record<keyof typeof OPTIONS, string>>;

const uuid = z.uuid('must be a UUID');
const decimalText = z.string().regex(/^\d+(\.\d+)?$/, 'must be a plain decimal, e.g. 12.5');
const countryCode = z.string().regex(/^[A-Z]{2}$/, 'must be a two-letter country code, e.g. PL');
const required = z.string().trim().min(1, 'is required');

const commands: Record<string, (em: EntityManager, flags: Flags, now: Date, defaults: { feePercentage: string }) => Promise<object>> = {
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
        pesel: z.string().regex(/^\d{11}$/, 'must be 11 digits').optional(),
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
};

function parse<Schema extends z.ZodType>(schema: Schema, flags: Flags): z.output<Schema> {
  const result = schema.safeParse(flags);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `--${issue.path.join('.')} ${issue.message}`);
  throw new DomainError('invalid-request', problems.join('; '));
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ args: process.argv.slice(2), options: OPTIONS, allowPositionals: true, strict: true });
  const name = positionals.join(' ');
  const command = commands[name];
  if (!command) throw new DomainError('invalid-request', `unknown command "${name}"\n${USAGE}`);
  const settings = loadProcessSettings();
  const log = createLogger('ops', settings.logLevel === 'info' ? 'warn' : settings.logLevel);
  const postgres = await ensurePostgres({ databaseUrl: settings.databaseUrl, dataDir: settings.dataDir, port: settings.embeddedPostgresPort, log });
  try {
    await migrate(postgres.url);
    const orm = await openOrm(postgres.url, 2);
    try {
      const result = await orm.em.fork().transactional((em) => command(em, values, new Date(), { feePercentage: settings.defaultFeePercentage }));
      process.stdout.write(`${JSON.stringify(result)}\n`);
      return 0;
    } finally {
      await orm.close(true);
    }
  } finally {
    await postgres.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const body =
      error instanceof DomainError
        ? { error: error.kind, message: error.detail }
        : { error: 'internal-error', message: error instanceof Error ? error.message : String(error) };
    process.stdout.write(`${JSON.stringify(body)}\n`);
    process.exit(1);
  },
);
