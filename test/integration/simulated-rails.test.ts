import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { freePort } from '../../dev/free-port';
import { eventually } from '../support/eventually';
import { killProcessGroup, runTsx, spawnTsx } from '../support/processes';
import { testStack } from '../support/stack';
import { EVERY_RAIL_SIMULATED } from '../support/test-config';

/**
 * The production entry points (`npm run worker`, `npm run api`) as their own processes: they
 * refuse to start while a rail they would simulate is not named in SIMULATED_RAILS, before
 * connecting to anything; with it, the worker says which rails it simulates (a WARN each, its
 * /health/ready, the payments_rail_simulated gauge).
 */

/** Nothing listens there: an entry point that tried to connect would hang or fail differently. */
const UNREACHABLE = { DATABASE_URL: 'postgres://nobody:nothing@127.0.0.1:1/none', TEMPORAL_ADDRESS: '127.0.0.1:1' };

/** The test run's environment without anything that decides the rails, so each test says what it means. */
function environment(overrides: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', WORKER_METRICS_PORT: '0', WORKER_HTTP_PORT: '0' };
  for (const name of Object.keys(env)) if (name === 'SIMULATED_RAILS' || name.startsWith('EVM_')) delete env[name];
  return { ...env, ...overrides };
}

const ETHEREUM_NODE = {
  EVM_RPC_URL_ETHEREUM: 'http://127.0.0.1:1',
  EVM_CHAIN_ID_ETHEREUM: '31337',
  EVM_HOT_WALLET_KEY_ETHEREUM: `0x${'1'.repeat(64)}`,
  EVM_USDC_ADDRESS_ETHEREUM: `0x${'2'.repeat(40)}`,
};

const running: ChildProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((child) => killProcessGroup(child)));
});

describe('a production entry point and the rails it would simulate', () => {
  it('the worker refuses to start without SIMULATED_RAILS, naming every simulated rail and the variable, before connecting anywhere', async () => {
    const startedAt = Date.now();
    const result = await runTsx(testStack().dataDir, 'main/worker.main.ts', [], environment(UNREACHABLE));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      'refusing to start: these rails would be simulated: sepa, bitcoin, dogecoin, ethereum, litecoin, polygon; ' +
        'set SIMULATED_RAILS=sepa,bitcoin,dogecoin,ethereum,litecoin,polygon to accept that (never in production with real money)',
    );
    // The refusal is the message, not a crash: no stack, no connection error.
    expect(result.stderr).not.toMatch(/\n\s+at |ECONNREFUSED|connect/);
    expect(Date.now() - startedAt).toBeLessThan(30_000);
  }, 60_000);

  it('the worker refuses a SIMULATED_RAILS that leaves one simulated rail out, and one that names a real rail', async () => {
    const partial = await runTsx(
      testStack().dataDir,
      'main/worker.main.ts',
      [],
      environment({ ...UNREACHABLE, SIMULATED_RAILS: 'sepa,bitcoin' }),
    );
    expect(partial.code).not.toBe(0);
    expect(partial.stderr).toContain('these rails would be simulated: dogecoin, ethereum, litecoin, polygon;');

    const contradiction = await runTsx(
      testStack().dataDir,
      'main/worker.main.ts',
      [],
      environment({ ...UNREACHABLE, ...ETHEREUM_NODE, SIMULATED_RAILS: EVERY_RAIL_SIMULATED }),
    );
    expect(contradiction.code).not.toBe(0);
    expect(contradiction.stderr).toContain('SIMULATED_RAILS names ethereum, but ethereum is real here (EVM_RPC_URL_ETHEREUM is set)');
    expect(contradiction.stderr).not.toContain('0x1111'); // the hot wallet key is never echoed
  }, 60_000);

  it('the API refuses to start while the bank, which no adapter of this build sends on for real, is not named', async () => {
    const result = await runTsx(
      testStack().dataDir,
      'main/api.main.ts',
      [],
      environment({ ...UNREACHABLE, PORT: String(await freePort()) }),
    );
    expect(result.code).not.toBe(0);
    // The chain networks are the worker's to judge: it holds their node settings.
    expect(result.stderr).toContain('refusing to start: these rails would be simulated: sepa;');
  }, 60_000);

  it('with SIMULATED_RAILS the worker starts, warns once per simulated rail, lists them in /health/ready and sets the gauge to 1', async () => {
    const httpPort = await freePort();
    const worker = spawnTsx(testStack().dataDir, 'main/worker.main.ts', [], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: environment({
        DATABASE_URL: testStack().databaseUrl,
        TEMPORAL_ADDRESS: testStack().temporalAddress,
        // A queue of its own: this worker takes none of the run's workflows.
        TEMPORAL_TASK_QUEUE: `simulated-rails-${randomUUID()}`,
        DATA_DIR: testStack().dataDir,
        WORKER_HTTP_PORT: String(httpPort),
        SIMULATED_RAILS: EVERY_RAIL_SIMULATED,
      }),
    });
    running.push(worker);
    let stderr = '';
    worker.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));

    const ready = await eventually(
      async () => {
        expect(worker.exitCode).toBeNull();
        const response = await fetch(`http://127.0.0.1:${httpPort}/health/ready`);
        expect(response.status).toBe(200);
        return (await response.json()) as Record<string, unknown>;
      },
      { timeoutMs: 90_000, intervalMs: 500 },
    );
    expect(ready).toEqual({
      status: 'ready',
      checks: { polling: 'ok', postgres: 'ok', chainIdentity: 'ok' },
      simulatedRails: ['sepa', 'bitcoin', 'dogecoin', 'ethereum', 'litecoin', 'polygon'],
    });
    const metrics = await (await fetch(`http://127.0.0.1:${httpPort}/metrics`)).text();
    for (const rail of ['sepa', 'bitcoin', 'dogecoin', 'ethereum', 'litecoin', 'polygon']) {
      expect(metrics).toContain(`payments_rail_simulated{rail="${rail}"} 1`);
    }
    const warnings = stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level?: string; msg?: string; rail?: string })
      .filter((entry) => entry.msg?.includes('is SIMULATED'));
    expect(warnings.map((entry) => [entry.level, entry.rail])).toEqual(
      ['sepa', 'bitcoin', 'dogecoin', 'ethereum', 'litecoin', 'polygon'].map((rail) => ['warn', rail]),
    );
  }, 120_000);
});
