import os from 'node:os';
import { z } from 'zod';
import { DomainError } from '../../core/errors';
import { parseCommandLine, parseFlags } from '../../main/ops-command';
import { operatorOf, reasonOf } from '../../main/ops-operator';

const OPTIONS = { partner: { type: 'string' }, release: { type: 'boolean' } } as const;

function refusal(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}

describe('the operator CLI command line', () => {
  it('reads flags and positionals', () => {
    expect(parseCommandLine(['key', 'create', '--partner', 'p1'], OPTIONS)).toEqual({
      flags: { partner: 'p1' },
      positionals: ['key', 'create'],
    });
  });

  it('answers an unknown flag as an invalid request naming it', () => {
    expect(refusal(() => parseCommandLine(['key', 'create', '--partnr', 'p1'], OPTIONS))).toMatchObject({
      kind: 'invalid-request',
      detail: expect.stringContaining('unknown flag --partnr'),
    });
  });

  it('answers a flag without its value, or a value given to a switch, as an invalid request', () => {
    expect(refusal(() => parseCommandLine(['key', 'create', '--partner'], OPTIONS))).toMatchObject({
      kind: 'invalid-request',
      detail: expect.stringContaining('--partner'),
    });
    expect(refusal(() => parseCommandLine(['--release=yes'], OPTIONS))).toMatchObject({
      kind: 'invalid-request',
      detail: expect.stringContaining('--release'),
    });
  });

  it('refuses a flag the command does not declare, naming it', () => {
    expect(refusal(() => parseFlags(z.object({ partner: z.string() }), { partner: 'p', reason: 'why' }))).toMatchObject({
      kind: 'invalid-request',
      detail: '--reason does not apply here',
    });
  });
});

describe('operatorOf', () => {
  const osUser = os.userInfo().username;

  it('takes --operator first, then OPS_OPERATOR, then the OS user, and always records the OS user', () => {
    expect(operatorOf(' alice ', 'bob')).toEqual({ actor: 'alice', osUser });
    expect(operatorOf(undefined, 'bob')).toEqual({ actor: 'bob', osUser });
    expect(operatorOf(undefined, undefined)).toEqual({ actor: osUser, osUser });
  });

  it.each([
    ['blank', '  ', '--operator must not be blank'],
    ['too long', 'a'.repeat(201), '--operator must be at most 200 characters'],
    ['a control character', 'ali\u001bce', '--operator must not contain control characters'],
  ])('refuses a name that is %s', (_what, name, message) => {
    expect(refusal(() => operatorOf(name, undefined)).detail).toBe(message);
  });
});

describe('reasonOf', () => {
  it('is null when not given, and trimmed when given', () => {
    expect(reasonOf(undefined)).toBeNull();
    expect(reasonOf('  partner asked by phone ')).toBe('partner asked by phone');
  });

  it.each([
    ['blank', ' ', '--reason must not be blank'],
    ['too long', 'r'.repeat(1001), '--reason must be at most 1000 characters'],
    ['a newline', 'first line\nsecond line', '--reason must not contain control characters'],
    ['a lone surrogate', 'bad \ud800', '--reason must be well-formed Unicode (it contains a lone surrogate)'],
  ])('refuses a reason that is %s', (_what, reason, message) => {
    expect(refusal(() => reasonOf(reason)).detail).toBe(message);
  });
});
