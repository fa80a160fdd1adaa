import { runTsx } from './processes';
import { testStack } from './stack';
import { TEST_DEPOSIT_XPUBS } from './test-config';

/**
 * Runs `npm run ops -- …` as an operator would (through tsx), against the run's database (plus
 * whatever `env` adds, e.g. TEMPORAL_ADDRESS). The process is recorded like every process a test
 * starts, so the run stops it even when the test gave up waiting. The CLI prints one JSON object,
 * on failure too.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the CLI's JSON as they read HTTP responses
export async function runOpsCli(args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number; output: any }> {
  const result = await runTsx(testStack().dataDir, 'main/ops.cli.ts', args, {
    ...process.env,
    // As operators connect: payments_ops, which writes no ledger table and runs no ledger function of public's.
    DATABASE_URL: testStack().opsDatabaseUrl,
    // Like the run's worker: the tests' webhook receivers listen on 127.0.0.1.
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    // As production's operator CLI: the extended public keys partners' addresses derive from, no seed.
    ...TEST_DEPOSIT_XPUBS,
    ...env,
  });
  try {
    return { code: result.code, output: JSON.parse(result.stdout) };
  } catch {
    throw new Error(`ops ${args.join(' ')} printed no JSON (exit ${result.code}): ${result.stdout}\n${result.stderr}`);
  }
}
