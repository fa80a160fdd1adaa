import { performance } from 'node:perf_hooks';
import { LosslessNumber, parse } from 'lossless-json';
import { partnerCryptoWithdrawalBodySchema, userCryptoWithdrawalBodySchema } from '../../api/schemas/crypto-withdrawal.schema';
import { exchangeBodySchema } from '../../api/schemas/exchange.schema';
import { networkFeeQuerySchema } from '../../api/schemas/network-fee.schema';
import { sepaTransferBodySchema } from '../../api/schemas/sepa-transfer.schema';
import { MAX_INPUT_DEPTH, textIssues } from '../../api/schemas/text-safety';
import { stringProblem } from '../../core/text-safety';
import { parseOrThrow } from '../../api/schemas/validation';
import { DomainError } from '../../core/errors';
import type { DomainErrorKind } from '../../core/errors';

const CONTROL = 'must not contain control characters';
const SURROGATE = 'must be well-formed Unicode (it contains a lone surrogate)';

function refusal(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}

describe('stringProblem', () => {
  it.each([
    ['NUL', 'Jan\u0000Kowalski'],
    ['U+0001', '\u0001'],
    ['tab', 'a\tb'],
    ['line feed', 'a\nb'],
    ['carriage return', 'a\rb'],
    ['U+001F', 'x\u001f'],
    ['DEL (U+007F)', '\u007f'],
  ])('refuses %s', (_label, text) => {
    expect(stringProblem(text)).toBe(CONTROL);
  });

  it.each([
    ['a lone high surrogate', '\ud800'],
    ['a lone low surrogate', 'a\udc00b'],
    ['a reversed pair', '\ude00\ud83d'],
    ['a high surrogate at the end', `Anna${'\ud83d'}`],
  ])('refuses %s', (_label, text) => {
    expect(stringProblem(text)).toBe(SURROGATE);
  });

  it.each(['Jan Kowalski', ' ', '~', '\u0080', '\u00a0', 'Zoë Łukasiewicz', '李小龍', '😀 emoji', '𝔸𝔹ℂ', '\ufffd', '\uffff'])(
    'accepts %j',
    (text) => {
      expect(stringProblem(text)).toBeUndefined();
    },
  );

  it('is linear: a 256 KiB string is checked in well under a second, where a quadratic check would take minutes', () => {
    const text = `${'𝔸'.repeat(128_000)}\u0000`;
    const started = performance.now();
    expect(stringProblem(text)).toBe(CONTROL);
    // A bound a loaded machine keeps (the usual figure is about a millisecond): what it tells apart is linear from quadratic.
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('textIssues', () => {
  it('names each offending field by its path, in body order', () => {
    const body = parse('{"name": "Jan\\u0000Kowalski", "memo": "ok", "nested": {"list": ["fine", "\\ud800"]}}');
    expect(textIssues(body)).toEqual([
      { path: ['name'], message: CONTROL },
      { path: ['nested', 'list', 1], message: SURROGATE },
    ]);
  });

  it('checks field names too, without repeating the bad name', () => {
    expect(textIssues({ 'a\u0000b': 'x', inner: { '\udfff': 1 } })).toEqual([
      { path: [], message: `a field name ${CONTROL}` },
      { path: ['inner'], message: `a field name ${SURROGATE}` },
    ]);
  });

  it('leaves numbers, booleans and null alone', () => {
    expect(textIssues({ amount: new LosslessNumber('1e-3'), flag: true, none: null, plain: 3 })).toEqual([]);
  });

  it(`refuses nesting deeper than ${MAX_INPUT_DEPTH} levels instead of walking it`, () => {
    let deep: unknown = 'leaf';
    for (let level = 0; level < 10_000; level += 1) deep = [deep];
    const issues = textIssues(deep);
    expect(issues).toEqual([
      { path: Array(MAX_INPUT_DEPTH).fill(0), message: `must not be nested more than ${MAX_INPUT_DEPTH} levels deep` },
    ]);
  });

  it('names at most ten problems however many there are', () => {
    const body = Object.fromEntries(Array.from({ length: 5_000 }, (_, index) => [`f${index}`, '\u0000']));
    expect(textIssues(body)).toHaveLength(10);
  });
});

describe('parseOrThrow refuses unsafe text with the route’s error kind, before the schema', () => {
  const withdrawal = {
    currency: 'eth',
    amount: new LosslessNumber('0.5'),
    walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
    name: 'Jan Kowalski',
    walletType: 'CUSTODIAL',
    receiverType: 'NATURAL',
  };
  const sepa = {
    currency: 'eur',
    amount: '10.00',
    receiverType: 'NATURAL',
    receiverFirstName: 'Marie',
    receiverLastName: 'Curie',
    destinationIban: 'DE89370400440532013000',
    transferTitle: 'Invoice 1',
  };

  it.each<[string, () => unknown, DomainErrorKind, string]>([
    [
      'a NUL in the withdrawal name (P410)',
      () => parseOrThrow(partnerCryptoWithdrawalBodySchema, { ...withdrawal, name: 'Jan\u0000Kowalski' }, 'invalid-currency'),
      'invalid-currency',
      `name: ${CONTROL}`,
    ],
    [
      'a NUL in sourceExternalUserId (P410)',
      () => parseOrThrow(userCryptoWithdrawalBodySchema, { ...withdrawal, sourceExternalUserId: 'user\u0000' }, 'invalid-currency'),
      'invalid-currency',
      `sourceExternalUserId: ${CONTROL}`,
    ],
    [
      'a lone surrogate in the memo (P410)',
      () => parseOrThrow(partnerCryptoWithdrawalBodySchema, { ...withdrawal, memo: '\ud800' }, 'invalid-currency'),
      'invalid-currency',
      `memo: ${SURROGATE}`,
    ],
    [
      'a lone surrogate in a SEPA name (P400)',
      () => parseOrThrow(sepaTransferBodySchema, { ...sepa, receiverLastName: 'Cu\udc00rie' }, 'invalid-request'),
      'invalid-request',
      `receiverLastName: ${SURROGATE}`,
    ],
    [
      'a control character in an exchange lockId (P400)',
      () => parseOrThrow(exchangeBodySchema, { amount: '1', currencyFrom: 'eur', currencyTo: 'btc', lockId: '\u007f' }, 'invalid-request'),
      'invalid-request',
      `lockId: ${CONTROL}`,
    ],
    [
      'a control character in the network-fee query (P410)',
      () => parseOrThrow(networkFeeQuerySchema, { currency: 'usdc', network: 'polygon\n' }, 'invalid-currency'),
      'invalid-currency',
      `network: ${CONTROL}`,
    ],
    [
      'a NUL in an amount string',
      () => parseOrThrow(sepaTransferBodySchema, { ...sepa, amount: '10\u0000' }, 'invalid-request'),
      'invalid-request',
      `amount: ${CONTROL}`,
    ],
  ])('%s', (_label, run, kind, message) => {
    const error = refusal(run);
    expect(error.kind).toBe(kind);
    expect(error.detail?.split('\n')).toContain(message);
  });

  it('lets clean Unicode through to the schema (astral characters included)', () => {
    expect(parseOrThrow(partnerCryptoWithdrawalBodySchema, { ...withdrawal, name: 'Zoë 𝔸𝔹 李' }, 'invalid-currency').name).toBe(
      'Zoë 𝔸𝔹 李',
    );
  });
});
