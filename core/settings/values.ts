import { z } from 'zod';
import { parseAccountPublicKey } from '../deposit-addresses';
import type { DepositKeyFamily } from '../deposit-addresses';
import { depositSeedProblem } from '../deposit-seed';
import { isIpAddress } from '../listen-address';
import { parsePayloadKeys } from '../payload-codec';
import type { PayloadKey } from '../payload-codec';
import { RAILS, isRail } from '../rails';
import { parseRateTable } from '../rates';
import { stringProblem } from '../text-safety';

/**
 * One zod schema per kind of value a variable holds. Each message reads after the variable's
 * name ("PORT must be a port number from 1 to 65535"), and none repeats key material: the caller
 * adds the value itself, unless the variable is a secret (load.ts).
 */

/** The longest delay a Node timer honours (about 24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/** An empty variable is an unset one, so `FOO= npm start` keeps the default. */
export const variable = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (value === '' ? undefined : value), schema);

type IntegerRule = { min?: number; max?: number; what?: string };

const integerText = ({ min = 0, max = Number.MAX_SAFE_INTEGER, what = 'a whole number' }: IntegerRule) => {
  const rule = `must be ${what} from ${min} to ${max}`;
  return z
    .string()
    .regex(/^\d{1,16}$/, rule)
    .transform(Number)
    .refine((value) => value >= min && value <= max, rule);
};

export const integer = (fallback: number, rule: IntegerRule = {}) => variable(integerText(rule).default(fallback));

/** The same, without a default: the caller picks one (an interval `npm start` shortens). */
export const optionalInteger = (rule: IntegerRule = {}) => variable(integerText(rule).optional());

export const port = (fallback: number) => integer(fallback, { min: 1, max: 65_535, what: 'a port number' });

export const milliseconds = (fallback: number, { min = 0, max = MAX_TIMER_MS } = {}) =>
  integer(fallback, { min, max, what: 'a whole number of milliseconds' });

const PORT_OR_OFF_RULE = 'must be a port number from 0 (off) to 65535';
const portOrOffText = () =>
  z
    .string()
    .regex(/^\d{1,5}$/, PORT_OR_OFF_RULE)
    .transform(Number)
    .refine((value) => value <= 65_535, PORT_OR_OFF_RULE);

/** A listener's port where 0 turns the listener off. */
export const portOrOff = (fallback: number) => variable(portOrOffText().default(fallback));

/** The same, without a default: the caller picks one (the API's metrics port differs under `npm start`). */
export const optionalPortOrOff = () => variable(portOrOffText().optional());

/** Digits with an optional fraction: no sign, exponent, separators or spaces (amounts are exact). */
const PLAIN_DECIMAL = /^\d{1,18}(\.\d{1,18})?$/;

const decimalText = (example: string) => z.string().regex(PLAIN_DECIMAL, `must be a plain decimal such as ${example}`);

export const decimal = (fallback: string, example: string) => variable(decimalText(example).default(fallback));

export const optionalDecimal = (example: string) => variable(decimalText(example).optional());

/** From 0 to below 100, at most 4 decimals: what the partner's fee column holds. */
export const percentage = (fallback: string) =>
  variable(
    z
      .string()
      .regex(/^\d{1,2}(\.\d{1,4})?$/, 'must be a plain decimal from 0 to below 100 with at most 4 decimals, such as 1 or 0.25')
      .default(fallback),
  );

/** A name Temporal or a URL carries as is: no spaces or control characters. */
export const name = (fallback: string) =>
  variable(
    z
      .string()
      .regex(/^[^\s\p{Cc}]{1,255}$/u, 'must be a name without spaces')
      .default(fallback),
  );

/** As `name`, unset allowed: the caller derives the default from another setting. */
export const optionalName = () =>
  variable(
    z
      .string()
      .regex(/^[^\s\p{Cc}]{1,255}$/u, 'must be a name without spaces')
      .optional(),
  );

export const text = (fallback: string) => variable(z.string().default(fallback));

export const optionalText = () => variable(z.string().optional());

/** At least `length` characters; the message never repeats the value. */
export const optionalSecretText = (length: number) => variable(z.string().min(length, `must be at least ${length} characters`).optional());

/** A person's name as an audit row records it: at most 200 characters, no control characters. */
export const personName = () =>
  variable(
    z
      .string()
      .trim()
      .min(1, 'must not be blank')
      .max(200, 'must be at most 200 characters')
      .refine((value) => stringProblem(value) === undefined, 'must not contain control characters or malformed Unicode')
      .optional(),
  );

/** One of a fixed list of words, e.g. LOG_LEVEL. */
export const oneOf = <const Options extends readonly [string, ...string[]]>(options: Options, fallback: Options[number]) =>
  variable(z.enum(options, { error: `must be one of ${options.join(', ')}` }).default(fallback));

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

export const postgresUrl = () => urlOf(['postgres:', 'postgresql:'], 'must be a postgres:// or postgresql:// URL');

export const httpUrl = () => urlOf(['http:', 'https:'], 'must be an http:// or https:// URL');

/** host[:port] (the SDK defaults to 7233), the host a name, an IPv4 address or a bracketed IPv6 address. */
export const hostAndPort = () =>
  variable(
    z
      .string()
      .refine((value) => {
        const match = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/.exec(value);
        return match !== null && (match[1] === undefined || (Number(match[1]) >= 1 && Number(match[1]) <= 65_535));
      }, 'must be host:port, such as temporal:7233')
      .optional(),
  );

const IP_ADDRESS_RULE = 'must be an IP address to listen on, such as 127.0.0.1 (this machine only), 0.0.0.0 or :: (every interface)';
const ipAddressText = () => z.string().refine(isIpAddress, IP_ADDRESS_RULE);

/** The interface a listener binds: an IP address, as every server started here (Temporal's, the SDK's exporter) takes one. */
export const ipAddress = (fallback: string) => variable(ipAddressText().default(fallback));

/** The same, without a default: the caller picks one (production and `npm start` differ). */
export const optionalIpAddress = () => variable(ipAddressText().optional());

/** Comma-separated; blanks around items and empty items are dropped. */
export const list = () =>
  variable(
    z
      .string()
      .default('')
      .transform((value): readonly string[] =>
        value
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean),
      ),
  );

/** A comma list of rails (core/rails.ts); an unknown name is refused, not ignored. */
export const rails = () =>
  list().superRefine((names, context) => {
    const unknown = names.filter((name) => !isRail(name));
    if (unknown.length > 0) {
      context.addIssue({ code: 'custom', message: `must be a comma list of ${RAILS.join(', ')} (unknown: ${unknown.join(', ')})` });
    }
  });

/** true/false (also 1/0, yes/no); unset is false. */
export const flag = () =>
  variable(
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be true or false' })
      .default('false')
      .transform((value) => ['true', '1', 'yes'].includes(value)),
  );

/** Parsed by `parse`; its error becomes the issue (the parsers never repeat key material). */
const parsedBy = <T>(parse: (value: string | undefined) => T, describe: (message: string) => string) =>
  variable(
    z
      .string()
      .optional()
      .transform((value, context) => {
        try {
          return parse(value);
        } catch (error) {
          context.addIssue({ code: 'custom', message: describe(error instanceof Error ? error.message : String(error)) });
          return z.NEVER;
        }
      }),
  );

/** id:base64key,… (core/payload-codec.ts). */
export const payloadKeys = () =>
  parsedBy(
    (value): readonly PayloadKey[] | undefined => (value === undefined ? undefined : parsePayloadKeys(value)),
    (message) => `is not valid (${message})`,
  );

/** A JSON table of EUR prices (core/rates.ts); unset, the built-in one. */
export const rateTable = () => parsedBy(parseRateTable, (message) => `is not a valid rate table (${message})`);

const optionalMatching = (pattern: RegExp, rule: string) => variable(z.string().regex(pattern, rule).optional());

/** 0x + 64 hex digits; the message never repeats the value. */
export const privateKey = () => optionalMatching(/^0x[0-9a-fA-F]{64}$/, 'must be 0x followed by 64 hex digits');

/** A BIP32 extended private key (xprv… or tprv…, 111 base58 characters); checked as a key when the adapter starts. */
export const extendedPrivateKey = () =>
  optionalMatching(/^[xt]prv[1-9A-HJ-NP-Za-km-z]{107}$/, 'must be an extended private key, xprv… or tprv… (111 characters)');

export const evmAddress = () => optionalMatching(/^0x[0-9a-fA-F]{40}$/, 'must be 0x followed by 40 hex digits');

export const chainId = () =>
  variable(
    z
      .string()
      .regex(/^\d{1,15}$/, 'must be a whole number')
      .transform(Number)
      .refine((value) => value >= 1, 'must be a whole number from 1')
      .optional(),
  );

export const weiAmount = (fallback: bigint) =>
  variable(
    z
      .string()
      .regex(/^\d{1,30}$/, 'must be a whole number of wei')
      .transform(BigInt)
      .default(fallback),
  );

/** Optional; refused with the sentence `problemOf` gives (never the value itself). */
const checkedBy = (problemOf: (value: string) => string | undefined) =>
  variable(
    z
      .string()
      .optional()
      .superRefine((value, context) => {
        const problem = value === undefined ? undefined : problemOf(value);
        if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
      }),
  );

/** An account-level extended public key of the family (core/deposit-addresses.ts), kept as given; never a private one. */
export const accountPublicKey = (family: DepositKeyFamily) =>
  checkedBy((value) => {
    const parsed = parseAccountPublicKey(family, value);
    return typeof parsed === 'string' ? parsed : undefined;
  });

/** A BIP32 seed as hex, strong by core/secret-strength.ts (core/deposit-seed.ts). */
export const depositSeed = () => checkedBy(depositSeedProblem);
