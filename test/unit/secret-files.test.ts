import { removeSecretsFromEnvironment, withSecretFiles } from '../../core/settings/secret-files';
import { InvalidSettingsError, loadProcessEnvironment } from '../../core/settings';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

describe('secrets from files (NAME_FILE)', () => {
  const files: Record<string, Buffer> = {
    '/run/secrets/token': Buffer.from('s3cret-token-value\n'),
    '/run/secrets/crlf': Buffer.from('crlf-value\r\n'),
    '/run/secrets/big': Buffer.alloc(65 * 1024, 'a'),
  };
  const readFile = (file: string): Buffer => {
    const content = files[file];
    if (!content) throw Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' });
    return content;
  };

  it('reads the value from the file, one trailing line break dropped, and leaves other variables alone', () => {
    const { env, problems } = withSecretFiles(
      { CODEC_ENDPOINT_TOKEN_FILE: '/run/secrets/token', TEMPORAL_API_KEY_FILE: '/run/secrets/crlf', PORT: '3000' },
      ['CODEC_ENDPOINT_TOKEN', 'TEMPORAL_API_KEY'],
      readFile,
    );
    expect(problems).toEqual([]);
    expect(env).toMatchObject({ CODEC_ENDPOINT_TOKEN: 's3cret-token-value', TEMPORAL_API_KEY: 'crlf-value', PORT: '3000' });
  });

  it('refuses both at once, an unreadable file and an oversized one, naming the variable and never the content', () => {
    const { problems } = withSecretFiles(
      {
        CODEC_ENDPOINT_TOKEN: 'given',
        CODEC_ENDPOINT_TOKEN_FILE: '/run/secrets/token',
        TEMPORAL_API_KEY_FILE: '/run/secrets/missing',
        DATABASE_URL_FILE: '/run/secrets/big',
      },
      ['CODEC_ENDPOINT_TOKEN', 'TEMPORAL_API_KEY', 'DATABASE_URL'],
      readFile,
    );
    expect(problems).toEqual([
      'CODEC_ENDPOINT_TOKEN: set CODEC_ENDPOINT_TOKEN or CODEC_ENDPOINT_TOKEN_FILE, not both',
      'TEMPORAL_API_KEY_FILE: /run/secrets/missing cannot be read (ENOENT)',
      "DATABASE_URL_FILE: /run/secrets/big is larger than 65536 bytes: not a secret's file",
    ]);
    expect(problems.join('\n')).not.toContain('s3cret');
  });

  it('takes every secret and its file path out of the environment, and nothing else', () => {
    const env: NodeJS.ProcessEnv = { CODEC_ENDPOINT_TOKEN: 'x', CODEC_ENDPOINT_TOKEN_FILE: '/f', PORT: '3000' };
    removeSecretsFromEnvironment(env, ['CODEC_ENDPOINT_TOKEN', 'TEMPORAL_API_KEY']);
    expect(env).toEqual({ PORT: '3000' });
  });

  it("a process's settings: the file's secret is loaded, then gone from its environment (a child would not inherit it)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'secret-files-'));
    try {
      const file = path.join(dir, 'token');
      fs.writeFileSync(file, 'codec-token-from-a-file-0123456789abcdef\n');
      const env: NodeJS.ProcessEnv = { CODEC_ENDPOINT_TOKEN_FILE: file, TEMPORAL_API_KEY: 'temporal-key-value', PORT: '3001' };
      const settings = loadProcessEnvironment(env, process.cwd());
      expect(settings.codecEndpoint.token).toBe('codec-token-from-a-file-0123456789abcdef');
      expect(settings.port).toBe(3001);
      expect(env).toEqual({ PORT: '3001' });
      expect(() => loadProcessEnvironment({ CODEC_ENDPOINT_TOKEN_FILE: path.join(dir, 'none') }, process.cwd())).toThrow(
        InvalidSettingsError,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
