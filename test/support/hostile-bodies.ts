import fc from 'fast-check';
import { CURRENCIES, CURRENCY_SCALE, CRYPTO_CURRENCIES } from '../../core/currencies';
import type { CryptoCurrency, Currency } from '../../core/currencies';
import { CRYPTO_WITHDRAWAL_LIMITS, SEPA_NAME_MAX_LENGTH, SEPA_REMITTANCE_MAX_LENGTH } from '../../core/payment-limits';
import { newWalletAddress } from '../../db/services/account-identifiers';
import { TEST_WORKER_SETTINGS } from './test-config';

/**
 * Request bodies for property tests: mostly hostile (huge exponents, long digit runs, control
 * characters, lone surrogates, text at every length limit ± 1, wrong types, missing and extra
 * fields), a small weighted minority fully valid, so the happy path runs too.
 */

/** A JSON token written exactly as given: numbers the JSON writer could not produce, or invalid ones. */
export class RawToken {
  constructor(readonly text: string) {}
}

/** Replaced, just before sending, by the id of a fresh lock from GET /v1/partner/get-lock. */
export const REAL_LOCK = Symbol('a real lock');

/** Either a JSON value (objects may hold RawToken and REAL_LOCK) or a whole body sent as is. */
export type HostileBody = { kind: 'json'; value: unknown; generatedValid: boolean } | { kind: 'raw'; text: string; contentType?: string };

/** JSON text of a value with RawTokens copied verbatim; JSON.stringify escapes lone surrogates and controls. */
export function toJsonText(value: unknown, lockId?: string): string {
  if (value instanceof RawToken) return value.text;
  if (value === REAL_LOCK) return JSON.stringify(lockId ?? 'no-lock-fetched');
  if (Array.isArray(value)) return `[${value.map((item) => toJsonText(item, lockId)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}:${toJsonText(item, lockId)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** Whether the text of the value is valid JSON (a RawToken may be deliberately not a number). */
export function isValidJsonValue(value: unknown): boolean {
  if (value instanceof RawToken) return JSON_NUMBER.test(value.text);
  if (Array.isArray(value)) return value.every(isValidJsonValue);
  if (typeof value === 'object' && value !== null) return Object.values(value).every(isValidJsonValue);
  return true;
}

/** Whether any string (or field name) holds a C0 control, DEL or a lone surrogate: the API must refuse it. */
export function hasUnsafeText(value: unknown): boolean {
  if (typeof value === 'string') return isUnsafeString(value);
  if (Array.isArray(value)) return value.some(hasUnsafeText);
  if (typeof value === 'object' && value !== null && !(value instanceof RawToken)) {
    return Object.entries(value).some(([key, item]) => isUnsafeString(key) || hasUnsafeText(item));
  }
  return false;
}

function isUnsafeString(text: string): boolean {
  if (!text.isWellFormed()) return true;
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    if (unit < 0x20 || unit === 0x7f) return true;
  }
  return false;
}

/** Whether the value nests deeper than any body of this API (the API refuses it as such). */
export function nestingDepth(value: unknown): number {
  if (typeof value !== 'object' || value === null || value instanceof RawToken) return 0;
  const items = Array.isArray(value) ? value : Object.values(value);
  return 1 + items.reduce<number>((deepest, item) => Math.max(deepest, nestingDepth(item)), 0);
}

// ── Text ──

const controlCharacter = fc.constantFrom('\u0000', '\u0001', '\u0008', '\t', '\n', '\r', '\u001b', '\u001f', '\u007f');
const loneSurrogate = fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff');
const astralCharacter = fc.constantFrom('𝔸', '😀', '𠜎', '🇵🇱', '👩‍👩‍👧');
const unusualCharacter = fc.constantFrom(
  'ü',
  'ł',
  'ß',
  'é',
  '李',
  'Ω',
  '\u00a0',
  '\u0085',
  '\u200b',
  '\u202e',
  '\ufeff',
  '\ufffd',
  '\uffff',
  '&',
  '<',
  '"',
  '\\',
  '%',
  '_',
);
const plainCharacter = fc.constantFrom('a', 'Z', '7', ' ', '-', "'");
const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));

const LENGTH_LIMITS = [
  SEPA_NAME_MAX_LENGTH,
  SEPA_REMITTANCE_MAX_LENGTH,
  CRYPTO_WITHDRAWAL_LIMITS.beneficiaryNameMaxLength,
  CRYPTO_WITHDRAWAL_LIMITS.memoMaxLength,
  CRYPTO_WITHDRAWAL_LIMITS.walletAddressMaxLength,
  CRYPTO_WITHDRAWAL_LIMITS.externalUserIdMaxLength,
];

/** Text of exactly `length` characters (code points) from the given characters. */
function textOfLength(length: number, character: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.array(character, { minLength: length, maxLength: length }).map((characters) => characters.join(''));
}

/** Text at a length limit − 1, exactly, or + 1, of plain, unusual or astral characters. */
const textAtLimit = fc
  .constantFrom(...LENGTH_LIMITS)
  .chain((limit) => fc.constantFrom(limit - 1, limit, limit + 1))
  .chain((length) => textOfLength(length, fc.oneof({ weight: 3, arbitrary: plainCharacter }, unusualCharacter, astralCharacter)));

const around = (inner: fc.Arbitrary<string>) =>
  fc.tuple(fc.string({ maxLength: 8 }), inner, fc.string({ maxLength: 8 })).map(([before, middle, after]) => before + middle + after);

/** Text that must be refused or stored faithfully: never a 500. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: around(controlCharacter) },
  { weight: 4, arbitrary: around(loneSurrogate) },
  { weight: 4, arbitrary: textAtLimit },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: anyUnit, maxLength: 20 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '   ',
      'null',
      'undefined',
      '0',
      'true',
      '{}',
      '__proto__',
      'constructor',
      "'; drop table account; --",
      '%00',
      '\\u0000',
      'a'.repeat(20_000),
      '😀'.repeat(10_000),
    ),
  },
);

// ── Other types where a string or number belongs ──

const deepArray = (depth: number): unknown => (depth === 0 ? 'leaf\u0000' : [deepArray(depth - 1)]);

export const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  fc.integer().map((value) => new RawToken(String(value))),
  fc.constant({ toString: '1', valueOf: 1 }),
  fc.constantFrom(3, 20, 200).map(deepArray),
);

// ── Amounts ──

/** Amount texts: hostile, malformed, and exactly at (or one decimal past) every currency's scale. */
const amountText: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '1e-3000000',
      '1e-100000000',
      '1e100000000',
      '1e1000',
      '1e-1000',
      '1e0001',
      '1E+999',
      '1e-999',
      '1e999',
      '2e-3',
      '1.5E2',
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(30_000, 60_000)
      .chain((digits) => fc.constantFrom('9'.repeat(digits), `0.${'1'.repeat(digits)}`, `${'1'.repeat(digits)}x`)),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      `1.${'0'.repeat(62)}`,
      `1.${'0'.repeat(63)}`,
      `0.${'0'.repeat(61)}1`,
      `0.${'0'.repeat(62)}1`,
      '9'.repeat(64),
      '9'.repeat(65),
    ),
  },
  {
    weight: 3,
    arbitrary: fc
      .constantFrom(...CURRENCIES)
      .chain((currency) => fc.constantFrom(CURRENCY_SCALE[currency] - 1, CURRENCY_SCALE[currency], CURRENCY_SCALE[currency] + 1))
      .chain((decimals) => fc.constantFrom(`0.${'0'.repeat(decimals - 1)}1`, `12.${'9'.repeat(decimals)}`)),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '0',
      '-0',
      '-1',
      '0.0',
      '-0.01',
      '1000000000000000',
      '1000000000000000.01',
      '999999999.99',
      '1000000000.00',
      '1000000000000000000000',
      'NaN',
      'Infinity',
      '-Infinity',
      '0x10',
      '1,5',
      '1_000',
      '',
      ' ',
      '.',
      '1.',
      '.5',
      '+1',
      '1e',
      'e1',
      '١٢',
      '１',
      '1 000',
      '00.10',
    ),
  },
);

/** An amount as a JSON number token, a string, or something else entirely. */
export const hostileAmount: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: amountText.map((text) => new RawToken(text)) },
  { weight: 4, arbitrary: amountText },
  { weight: 1, arbitrary: around(controlCharacter).map((text) => `1${text}`) },
  { weight: 1, arbitrary: wrongType },
);

/** A valid amount as a number token or a decimal string. */
const validAmount = (texts: readonly string[]) =>
  fc.constantFrom(...texts).chain((text) => fc.oneof(fc.constant(new RawToken(text)), fc.constant(text)));

// ── Bodies ──

type Fields = Record<string, fc.Arbitrary<unknown>>;

/**
 * A route's bodies: valid ones (weight 1), the valid base with one to three fields replaced by
 * hostile values, removed, or joined by extra fields (most), and whole hostile bodies. Most
 * mutated bodies also get one change that surely breaks them (a required field removed or of a
 * wrong type, an unknown field), so that only a few dozen of 10,000 start real operations.
 */
function bodiesOf(
  valid: fc.Arbitrary<Record<string, unknown>>,
  base: fc.Arbitrary<Record<string, unknown>>,
  hostile: Fields,
  required: readonly string[],
): fc.Arbitrary<HostileBody> {
  const fieldNames = Object.keys(hostile);
  const mutation = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...fieldNames).chain((field) => hostile[field]!.map((value) => ({ set: field, value }))) },
    { weight: 1, arbitrary: fc.constantFrom(...fieldNames).map((field) => ({ remove: field })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.oneof(fc.string({ maxLength: 10 }), hostileText), fc.oneof(hostileText, wrongType))
        .map(([key, value]) => ({ extra: key, value })),
    },
  );
  const surelyBreaks = fc.oneof(
    fc.constantFrom(...required).map((field) => ({ remove: field })),
    fc.tuple(fc.constantFrom(...required), fc.constantFrom<unknown>(null, true, [], {})).map(([field, value]) => ({ set: field, value })),
    fc.string({ maxLength: 10 }).map((key) => ({ extra: `unknown-${key}`, value: 1 })),
  );
  const mutations = fc.oneof(
    { weight: 1, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }) },
    {
      weight: 19,
      arbitrary: fc
        .tuple(fc.array(mutation, { minLength: 1, maxLength: 3 }), surelyBreaks)
        .map(([changes, breaking]) => [...changes, breaking]),
    },
  );
  const mutated = fc.tuple(base, mutations).map(([body, changes]) => {
    const result: Record<string, unknown> = { ...body };
    for (const change of changes) {
      if ('set' in change) result[change.set] = change.value;
      else if ('remove' in change) delete result[change.remove];
      else Object.defineProperty(result, change.extra, { value: change.value, enumerable: true, writable: true, configurable: true });
    }
    return { kind: 'json' as const, value: result, generatedValid: false };
  });
  return fc.oneof(
    { weight: 1, arbitrary: valid.map((value) => ({ kind: 'json' as const, value, generatedValid: true })) },
    { weight: 400, arbitrary: mutated },
    { weight: 12, arbitrary: wholeHostileBody },
  );
}

const wholeHostileBody: fc.Arbitrary<HostileBody> = fc.oneof(
  fc
    .constantFrom(
      '',
      ' ',
      'null',
      'true',
      '1',
      '"text"',
      '[]',
      '[{}]',
      '{',
      '{"amount": }',
      '{"amount": 1,}',
      '{"a":1}{"b":2}',
      '{"amount": 1, "amount": "2"}',
      '\ufeff{}',
      '{"amount": 1e-3000000}',
      `{"amount": ${'9'.repeat(60_000)}}`,
      `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
      `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`,
      `{"padding": "${'x'.repeat(70_000)}"}`,
    )
    .map((text) => ({ kind: 'raw' as const, text })),
  fc
    .constantFrom('text/plain', 'application/x-www-form-urlencoded')
    .map((contentType) => ({ kind: 'raw' as const, text: '{"amount": "1"}', contentType })),
  wrongType.map((value) => ({ kind: 'json' as const, value, generatedValid: false })),
);

const walletPool = (currency: CryptoCurrency) => Array.from({ length: 4 }, () => newWalletAddress(currency));
const WALLETS = Object.fromEntries(CRYPTO_CURRENCIES.map((currency) => [currency, walletPool(currency)])) as Record<
  CryptoCurrency,
  string[]
>;
WALLETS.eth.push(TEST_WORKER_SETTINGS.DENY_LIST_ADDRESSES);

/** Above each network's minimum, within scale; eth 0.5 (1500 EUR) also meets the travel rule. */
const WITHDRAWAL_AMOUNTS: Record<CryptoCurrency, readonly string[]> = {
  btc: ['0.001', '0.0005'],
  doge: ['20', '15.5'],
  eth: ['0.01', '0.5'],
  ltc: ['0.01'],
  pol: ['2', '10.5'],
  usdc: ['20', '25.5'],
};

const walletType = fc.constantFrom('CUSTODIAL', 'NON_CUSTODIAL', 'OTHER');
const receiverType = fc.constantFrom('NATURAL', 'LEGAL');

/** Names a person may have: any printable Unicode (astral included), not blank. */
const validName = fc.oneof(
  fc.constantFrom('Jan Kowalski', 'Zoë Łukasiewicz', '李小龍', '𝔸nna 😀 Nowak', 'Acme Sp. z o.o.'),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).filter((text) => text.trim().length > 0 && !isUnsafeString(text)),
);

function withdrawalBase(user: { externalUserId: string } | undefined) {
  return fc.constantFrom(...CRYPTO_CURRENCIES).chain((currency) =>
    fc.record({
      currency: fc.constantFrom(currency, currency.toUpperCase()),
      amount: validAmount(WITHDRAWAL_AMOUNTS[currency]),
      walletAddress: fc.constantFrom(...WALLETS[currency]),
      name: validName,
      walletType,
      receiverType,
      ...(currency === 'usdc' ? { network: fc.constantFrom('ethereum', 'POLYGON') } : {}),
      ...(user ? { sourceExternalUserId: fc.constant(user.externalUserId) } : {}),
    }),
  );
}

/** POST /v1/partner/crypto-withdrawal, or /v1/crypto-withdrawal when a user is given. */
export function withdrawalBodies(user?: { externalUserId: string }): fc.Arbitrary<HostileBody> {
  const base = withdrawalBase(user);
  const hostileAddress = fc.oneof(
    hostileText,
    fc.constantFrom(...CRYPTO_CURRENCIES).map((currency) => WALLETS[currency][0]!),
    fc.constantFrom(
      ` ${WALLETS.eth[0]}`,
      WALLETS.eth[0]!.toLowerCase().replace('0x', '0X'),
      'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
      'bc1p' + 'q'.repeat(58),
      '0x' + '0'.repeat(40),
    ),
  );
  return bodiesOf(
    base,
    base,
    {
      currency: fc.oneof(hostileText, wrongType, fc.constantFrom('eur', 'xrp', 'BTC ', 'ETH\u0000', 'usdc\ud800', '')),
      amount: hostileAmount,
      walletAddress: hostileAddress,
      memo: fc.oneof(hostileText, wrongType, fc.constant(null)),
      network: fc.oneof(hostileText, wrongType, fc.constantFrom('POLYGON', 'ethereum', 'solana', '', 'polygon\u0000', null)),
      name: fc.oneof({ weight: 4, arbitrary: hostileText }, wrongType),
      walletType: fc.oneof(hostileText, wrongType, fc.constantFrom('custodial', 'HOT', 'CUSTODIAL\u0000')),
      receiverType: fc.oneof(hostileText, wrongType, fc.constantFrom('natural', 'ROBOT')),
      sourceExternalUserId: fc.oneof(
        { weight: 4, arbitrary: hostileText },
        wrongType,
        fc.constantFrom('nobody', 'u'.repeat(255), 'u'.repeat(256)),
      ),
    },
    ['currency', 'amount', 'walletAddress', 'name', 'walletType', 'receiverType'],
  );
}

const SEPA_CHARACTERS = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/-?:().,'+ "];
const sepaText = (maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...SEPA_CHARACTERS), minLength: 1, maxLength }).filter((text) => text.trim().length > 0);

/** The simulated bank rejects the last one: its transfers end UNSUCCESSFUL. */
const IBANS = [
  'DE89370400440532013000',
  'FR1420041010050500013M02606',
  'GB82WEST12345698765432',
  TEST_WORKER_SETTINGS.SIMULATED_BANK_REJECT_IBANS,
];

const sepaBase = fc.oneof(
  fc.record({
    currency: fc.constantFrom('eur', 'EUR'),
    amount: validAmount(['10.00', '12.3', '0.01', '1']),
    receiverType: fc.constant('NATURAL'),
    receiverFirstName: sepaText(20),
    receiverLastName: sepaText(20),
    destinationIban: fc.constantFrom(...IBANS),
    transferTitle: sepaText(40),
  }),
  fc.record({
    currency: fc.constant('eur'),
    amount: validAmount(['10.00', '99.99']),
    receiverType: fc.constant('LEGAL'),
    companyName: sepaText(40),
    destinationIban: fc.constantFrom(...IBANS),
    transferTitle: sepaText(40),
  }),
);

/** A SEPA name field: hostile text, SEPA text at the limits ± 1, or a valid one. */
const sepaNameValue = fc.oneof(
  { weight: 4, arbitrary: hostileText },
  {
    weight: 2,
    arbitrary: fc.constantFrom(34, 35, 36, 69, 70, 71).chain((length) => textOfLength(length, fc.constantFrom('A', 'b', ' ', '-'))),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom('Maria Magdalena Alexandra Christina', 'von Hohenzollern-Sigmaringen-Wittelsbach', 'Müller', 'A&B'),
  },
  { weight: 1, arbitrary: wrongType },
);

export function sepaTransferBodies(): fc.Arbitrary<HostileBody> {
  return bodiesOf(
    sepaBase,
    sepaBase,
    {
      currency: fc.oneof(hostileText, wrongType, fc.constantFrom('usd', 'EUR ', 'eur\u0000')),
      amount: hostileAmount,
      receiverType: fc.oneof(hostileText, wrongType, fc.constantFrom('natural', 'LEGAL', 'NATURAL')),
      receiverFirstName: sepaNameValue,
      receiverLastName: sepaNameValue,
      companyName: sepaNameValue,
      destinationIban: fc.oneof(
        hostileText,
        wrongType,
        fc.constantFrom(
          'DE89 3704 0044 0532 0130 00',
          'de89370400440532013000',
          'DE00370400440532013000',
          'US12345678901234567890',
          'BR1800360305000010009795493C1',
          '',
        ),
      ),
      transferTitle: fc.oneof(
        { weight: 3, arbitrary: hostileText },
        {
          weight: 2,
          arbitrary: fc.constantFrom(139, 140, 141).chain((length) => textOfLength(length, fc.constantFrom('T', '/', ' ', '?'))),
        },
        { weight: 1, arbitrary: wrongType },
      ),
    },
    ['currency', 'amount', 'receiverType', 'destinationIban', 'transferTitle'],
  );
}

/** Small amounts each currency's partner balance covers many times. */
const EXCHANGE_AMOUNTS: Record<Currency, readonly string[]> = {
  eur: ['10', '0.5'],
  btc: ['0.001'],
  doge: ['100'],
  eth: ['0.01'],
  ltc: ['0.1'],
  pol: ['10'],
  usdc: ['10.5'],
};

const currencyPair = fc
  .constantFrom(...CURRENCIES)
  .chain((from) => fc.constantFrom(...CURRENCIES.filter((to) => to !== from)).map((to) => [from, to] as const));

const exchangeValid = currencyPair.chain(([from, to]) =>
  fc.record({
    amount: validAmount(EXCHANGE_AMOUNTS[from]),
    currencyFrom: fc.constant(from),
    currencyTo: fc.constant(to),
    lockId: fc.constant<unknown>(REAL_LOCK),
  }),
);

/** The base of most exchange bodies names no real lock: a lock is fetched only for a fraction. */
const exchangeBase = currencyPair.chain(([from, to]) =>
  fc.record({
    amount: validAmount(EXCHANGE_AMOUNTS[from]),
    currencyFrom: fc.constant(from),
    currencyTo: fc.constant(to),
    lockId: fc.oneof(
      { weight: 2, arbitrary: fc.constant<unknown>(REAL_LOCK) },
      { weight: 12, arbitrary: fc.constant('not-a-lock') },
      { weight: 1, arbitrary: fc.uuid() },
    ),
  }),
);

export function exchangeBodies(): fc.Arbitrary<HostileBody> {
  const currency = fc.oneof(hostileText, wrongType, fc.constantFrom('EUR', 'xrp', 'btc ', 'eth\u0000', ''));
  return bodiesOf(
    exchangeValid,
    exchangeBase,
    {
      amount: hostileAmount,
      currencyFrom: currency,
      currencyTo: currency,
      lockId: fc.oneof({ weight: 3, arbitrary: hostileText }, wrongType, fc.uuid(), fc.constant<unknown>(REAL_LOCK)),
    },
    ['amount', 'currencyFrom', 'currencyTo', 'lockId'],
  );
}
