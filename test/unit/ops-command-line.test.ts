import os from 'node:os';
import { z } from 'zod';
import { DomainError } from '../../core/errors';
import { asUsageMistake, commandLineOptions, limitFlag, parseCommandLine, parseFlags, UsageMistake } from '../../main/ops-command';
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

  it('answers an unknown flag as a usage mistake naming it', () => {
    const mistake = refusal(() => parseCommandLine(['key', 'create', '--partnr', 'p1'], OPTIONS));
    expect(mistake).toBeInstanceOf(UsageMistake);
    expect(mistake).toMatchObject({ kind: 'invalid-request', detail: 'unknown flag --partnr' });
  });

  it('answers a flag without its value, or a value given to a switch, as a usage mistake', () => {
    const missingValue = refusal(() => parseCommandLine(['key', 'create', '--partner'], OPTIONS));
    expect(missingValue).toBeInstanceOf(UsageMistake);
    expect(missingValue).toMatchObject({ kind: 'invalid-request', detail: expect.stringContaining('--partner') });
    const valueOnSwitch = refusal(() => parseCommandLine(['--release=yes'], OPTIONS));
    expect(valueOnSwitch).toBeInstanceOf(UsageMistake);
    expect(valueOnSwitch).toMatchObject({ kind: 'invalid-request', detail: expect.stringContaining('--release') });
  });

  it("derives the options from the commands' flags: a switch where the schema is a boolean, a value otherwise, and the actor and reason", () => {
    const options = commandLineOptions([
      { flags: { partner: z.uuid(), release: z.boolean().optional() } },
      { flags: { partner: z.uuid().optional(), limit: limitFlag(10) } },
      {},
    ]);
    expect(options).toEqual({
      operator: { type: 'string' },
      reason: { type: 'string' },
      partner: { type: 'string' },
      release: { type: 'boolean' },
      limit: { type: 'string' },
    });
    expect(parseCommandLine(['operation', 'resolve', 'x', '--release', '--partner', 'p'], options).flags).toEqual({
      release: true,
      partner: 'p',
    });
  });

  it('refuses at start a flag one command declares as a switch and another with a value', () => {
    expect(() => commandLineOptions([{ flags: { settle: z.boolean() } }, { flags: { settle: z.string() } }])).toThrow(
      '--settle is declared both as a switch and with a value',
    );
  });

  it('reads --limit as a whole number from 1 to its maximum', () => {
    const schema = z.object({ limit: limitFlag(500) });
    expect(parseFlags(schema, { limit: '500' })).toEqual({ limit: 500 });
    expect(parseFlags(schema, {})).toEqual({});
    for (const limit of ['0', '501', '1.5', '-1', '1e2'])
      expect(refusal(() => parseFlags(schema, { limit }))).toMatchObject({ detail: '--limit must be a whole number from 1 to 500' });
  });

  it('answers a flag the command does not declare as a usage mistake naming it', () => {
    const mistake = refusal(() => parseFlags(z.object({ partner: z.string() }), { partner: 'p', reason: 'why' }));
    expect(mistake).toBeInstanceOf(UsageMistake);
    expect(mistake).toMatchObject({ kind: 'invalid-request', detail: '--reason does not apply here' });
  });

  it('answers a missing flag, or a value not in its format, as a usage mistake naming each', () => {
    const schema = z.object({ partner: z.uuid('must be a UUID'), name: z.string('is required') });
    const mistake = refusal(() => parseFlags(schema, { partner: 'not-a-uuid' }));
    expect(mistake).toBeInstanceOf(UsageMistake);
    expect(mistake).toMatchObject({ kind: 'invalid-request', detail: '--partner must be a UUID; --name is required' });
  });

  it('turns an invalid request from a check of a command-line value into a usage mistake, and leaves other errors as they are', () => {
    const malformed = refusal(() =>
      asUsageMistake(() => {
        throw new DomainError('invalid-request', '"x" is not an id');
      }),
    );
    expect(malformed).toBeInstanceOf(UsageMistake);
    expect(malformed.detail).toBe('"x" is not an id');
    const notFound = refusal(() =>
      asUsageMistake(() => {
        throw new DomainError('not-found', 'no such thing');
      }),
    );
    expect(notFound).not.toBeInstanceOf(UsageMistake);
    expect(notFound.kind).toBe('not-found');
    expect(asUsageMistake(() => 'fine')).toBe('fine');
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
    const mistake = refusal(() => operatorOf(name, undefined));
    expect(mistake).toBeInstanceOf(UsageMistake);
    expect(mistake.detail).toBe(message);
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
    const mistake = refusal(() => reasonOf(reason));
    expect(mistake).toBeInstanceOf(UsageMistake);
    expect(mistake.detail).toBe(message);
  });
});
