import fs from 'node:fs';
import path from 'node:path';
import { DECLARED_SETTINGS, InvalidSettingsError, SETTING_VARIABLES, loadSettings } from '../../core/settings';
import { SETTINGS_REFERENCE_PAGE, markersOf, withSettingsReference } from '../../core/settings/reference';
import { shownDefaultOf } from '../../core/settings/setting';

const ROOT = path.join(__dirname, '..', '..');

/** The problems of loading `env`, or none. */
function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadSettings(env, '/');
    return [];
  } catch (error) {
    if (error instanceof InvalidSettingsError) return error.problems;
    throw error;
  }
}

describe('the settings declarations', () => {
  it('declare each variable once, named in capitals', () => {
    expect(new Set(SETTING_VARIABLES).size).toBe(SETTING_VARIABLES.length);
    for (const variable of SETTING_VARIABLES) expect(variable).toMatch(/^[A-Z][A-Z0-9_]*$/);
  });

  it.each(DECLARED_SETTINGS.map(({ setting }) => [setting.variable, setting] as const))(
    '%s has a one-line description and a default the reference can show',
    (_variable, setting) => {
      expect(setting.description.trim()).not.toBe('');
      // A table cell: no line break, no column separator.
      expect(setting.description).not.toMatch(/[\n|]/);
      expect(shownDefaultOf(setting)).not.toBe('');
    },
  );

  it('mark as secrets the keys, tokens and URLs that may carry a password', () => {
    expect(DECLARED_SETTINGS.filter(({ setting }) => setting.secret).map(({ setting }) => setting.variable)).toEqual(
      expect.arrayContaining([
        'DATABASE_URL',
        'DATABASE_MIGRATOR_URL',
        'DATABASE_ADMIN_URL',
        'DATABASE_READ_URL',
        'PAYLOAD_ENCRYPTION_KEYS',
        'TEMPORAL_API_KEY',
        'CODEC_ENDPOINT_TOKEN',
        'EVM_HOT_WALLET_KEY_ETHEREUM',
        'EVM_HOT_WALLET_KEY_POLYGON',
        'EVM_RPC_URL_ETHEREUM',
        'EVM_RPC_URL_POLYGON',
        'EVM_DEPOSIT_SEED',
        'EVM_DEPOSIT_XPUB',
        'BTC_DEPOSIT_XPUB',
        'LTC_DEPOSIT_XPUB',
        'DOGE_DEPOSIT_XPUB',
      ]),
    );
  });

  const secrets = DECLARED_SETTINGS.filter(({ setting }) => setting.secret).map(({ setting }) => setting.variable);

  /** Bad for every kind of secret that has a rule (a URL, keys, a token of 16+ characters), each with a part to look for. */
  const BAD_SECRETS = ['hunter2', 'mysql://root:hunter2@db/x', 'k1:hunter2', `0x${'hunter2'.repeat(9)}`, 'http hunter2'];

  it.each(secrets)('never repeat a bad value of %s in a message', (variable) => {
    const refused = BAD_SECRETS.map((value) => problemsOf({ [variable]: value })).filter((problems) => problems.length > 0);
    // Any text is an API key to this side (Temporal judges it); every other secret refuses some of them.
    if (variable === 'TEMPORAL_API_KEY') expect(refused).toEqual([]);
    else expect(refused.length).toBeGreaterThan(0);
    for (const problems of refused) {
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(new RegExp(`^${variable} `));
      expect(problems[0]).not.toContain('hunter2');
    }
  });

  it("never repeat a network's secrets in the problems that span variables", () => {
    const problems = problemsOf({ EVM_RPC_URL_POLYGON: 'https://rpc.example/v3/hunter2' });
    expect(problems).toHaveLength(3);
    expect(problems.join('\n')).not.toContain('hunter2');
  });
});

describe('the settings reference', () => {
  const page = path.join(ROOT, SETTINGS_REFERENCE_PAGE);

  it(`in ${SETTINGS_REFERENCE_PAGE} is what the declarations say (else: run npm run docs:settings)`, () => {
    const written = fs.readFileSync(page, 'utf8');
    const expected = withSettingsReference(written);
    if (written !== expected) {
      const line = written.split('\n').findIndex((text, index) => text !== expected.split('\n')[index]);
      throw new Error(`${SETTINGS_REFERENCE_PAGE} differs from the settings declarations from line ${line + 1}: run npm run docs:settings`);
    }
  });

  it('lists every declared variable, per-network ones by their <NETWORK> name', () => {
    const written = fs.readFileSync(page, 'utf8');
    for (const { setting } of DECLARED_SETTINGS) expect(written).toContain(`| \`${setting.documentedAs}\` |`);
  });

  it('leaves the prose around the tables alone, and needs both pairs of markers', () => {
    const production = markersOf('production');
    const development = markersOf('development');
    const page = [
      '# Title',
      'before',
      production.begin,
      'stale',
      production.end,
      'between',
      development.begin,
      development.end,
      'after',
    ].join('\n');
    const rewritten = withSettingsReference(page);
    expect(rewritten.startsWith(`# Title\nbefore\n${production.begin}\n| variable | default | meaning |`)).toBe(true);
    expect(rewritten).toContain(`${production.end}\nbetween\n${development.begin}\n| variable | default | meaning |`);
    expect(rewritten.endsWith(`${development.end}\nafter`)).toBe(true);
    expect(rewritten).not.toContain('stale');
    expect(withSettingsReference(rewritten)).toBe(rewritten);
    expect(() => withSettingsReference(page.replace(development.end, ''))).toThrow(/settings marker/);
  });
});
