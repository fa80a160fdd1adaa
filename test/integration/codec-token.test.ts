import type { ChildProcess } from 'node:child_process';
import { freePort } from '../../dev/free-port';
import { eventually } from '../support/eventually';
import { killProcessGroup, runTsx, spawnTsx } from '../support/processes';
import { testStack } from '../support/stack';

/**
 * `npm run codec` (main/codec.main.ts), the production entry point of the codec endpoint, as its
 * own process: whoever holds its token reads every payload in clear, so it refuses to start with
 * a weak one (core/secret-strength.ts), naming the variable and the rule but never the token.
 */
const running: ChildProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((child) => killProcessGroup(child)));
});

async function codecEnvironment(token: string): Promise<{ env: NodeJS.ProcessEnv; port: number }> {
  const port = await freePort();
  // PAYLOAD_ENCRYPTION_KEYS: the run's (global-setup sets it).
  return {
    env: { ...process.env, LOG_LEVEL: 'warn', CODEC_ENDPOINT_TOKEN: token, CODEC_PORT: String(port), CODEC_HOST: '127.0.0.1' },
    port,
  };
}

describe('npm run codec and its token', () => {
  it.each([
    ['a 20-character token', 'codec-token-20-chars', 'CODEC_ENDPOINT_TOKEN must be at least 32 characters long'],
    ['a long repetition', 'ab'.repeat(20), 'CODEC_ENDPOINT_TOKEN must have at least 10 different characters'],
    ['38 digits', '01234567890123456789012345678901234567', 'CODEC_ENDPOINT_TOKEN must carry at least 128 bits of entropy'],
  ])(
    'refuses %s, naming the variable and the rule, never the token',
    async (_what, token, rule) => {
      const { env } = await codecEnvironment(token);
      const result = await runTsx(testStack().dataDir, 'main/codec.main.ts', [], env);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(rule);
      expect(result.stderr + result.stdout).not.toContain(token);
      // A refusal, not a crash: no stack.
      expect(result.stderr).not.toMatch(/\n\s+at /);
    },
    60_000,
  );

  it('starts with a strong one', async () => {
    const { env, port } = await codecEnvironment('3f9c0a7be14d58e2c6b0a9f1d47e3c25b8a6f0e9d1c2b3a4958677e6d5c4b3a2');
    const child = spawnTsx(testStack().dataDir, 'main/codec.main.ts', [], { env, stdio: 'ignore' });
    running.push(child);
    await eventually(
      async () => {
        expect(child.exitCode).toBeNull();
        expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
  }, 60_000);
});
