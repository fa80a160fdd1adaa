import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { evmSweeperContract } from '../../contracts';
import { freePort } from '../../dev/free-port';
import { eventually } from '../support/eventually';
import { temporalClient, untilWorkerPolls } from '../support/operations';
import { killProcessGroup, runTsx, spawnTsx } from '../support/processes';
import { testStack } from '../support/stack';
import { EVERY_RAIL_SIMULATED, TEST_DEPOSIT_SEED, TEST_DEPOSIT_XPUBS } from '../support/test-config';

/**
 * The deposit seeds' one home: `npm run sweeper`, a process and task queue of its own. The worker (webhooks to partners'
 * hosts, bank documents) and the API refuse a seed; the sweeper serves its queue, and the worker ends sweeps left on its
 * own, where no key is.
 */

const UNREACHABLE = { DATABASE_URL: 'postgres://nobody:nothing@127.0.0.1:1/none', TEMPORAL_ADDRESS: '127.0.0.1:1' };
const SEEDS = ['EVM_DEPOSIT_SEED', 'BTC_DEPOSIT_SEED', 'LTC_DEPOSIT_SEED', 'DOGE_DEPOSIT_SEED'];

/** The run's environment without chain or seed settings, so each test says what it gives. */
function environment(overrides: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info', WORKER_METRICS_PORT: '0', WORKER_HTTP_PORT: '0' };
  for (const name of Object.keys(env)) if (name.startsWith('EVM_') || name.startsWith('UTXO_') || SEEDS.includes(name)) delete env[name];
  return { ...env, ...overrides };
}

const running: ChildProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((child) => killProcessGroup(child)));
});

describe('the deposit seeds and the processes that may hold them', () => {
  it.each([
    ['main/worker.main.ts', 'the worker'],
    ['main/api.main.ts', 'the API'],
  ])(
    '%s refuses to start with a deposit seed, before connecting anywhere, never echoing it',
    async (script, who) => {
      const result = await runTsx(
        testStack().dataDir,
        script,
        [],
        environment({ ...UNREACHABLE, SIMULATED_RAILS: EVERY_RAIL_SIMULATED, BTC_DEPOSIT_SEED: TEST_DEPOSIT_SEED }),
      );
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(`BTC_DEPOSIT_SEED is set: ${who} never holds deposit seeds; give them to \`npm run sweeper\` only`);
      expect(result.stderr).not.toContain(TEST_DEPOSIT_SEED.slice(0, 16));
      expect(result.stderr).not.toMatch(/\n\s+at |ECONNREFUSED/);
    },
    60_000,
  );

  it('the sweeper refuses a seed without its xpub, which would leave a seed that is not the addresses’ unchecked', async () => {
    const result = await runTsx(
      testStack().dataDir,
      'main/sweeper.main.ts',
      [],
      environment({ ...UNREACHABLE, LTC_DEPOSIT_SEED: TEST_DEPOSIT_SEED }),
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('LTC_DEPOSIT_SEED is set without LTC_DEPOSIT_XPUB');
    expect(result.stderr).not.toContain(TEST_DEPOSIT_SEED.slice(0, 16));
  }, 60_000);

  it('the sweeper serves its own task queue with its networks’ sweepers; the worker ends sweeps left on its queue', async () => {
    const taskQueue = `sweeper-entry-${randomUUID()}`;
    const sweeperQueue = `${taskQueue}-sweeper`;
    const { client, close } = await temporalClient();
    const sweeperId = evmSweeperContract.workflowId('polygon');
    try {
      // As before the sweeper had a queue of its own: a sweeper on the general queue, where no deposit key is.
      const stranded = await client.workflow.start(evmSweeperContract.workflowType, {
        workflowId: `${sweeperId}-${randomUUID()}`,
        taskQueue,
        args: [{ network: 'polygon' }],
      });
      const worker = spawnTsx(testStack().dataDir, 'main/worker.main.ts', [], {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: environment({
          DATABASE_URL: testStack().databaseUrl,
          TEMPORAL_ADDRESS: testStack().temporalAddress,
          TEMPORAL_TASK_QUEUE: taskQueue,
          DATA_DIR: testStack().dataDir,
          SIMULATED_RAILS: EVERY_RAIL_SIMULATED,
        }),
      });
      running.push(worker);
      await eventually(async () => expect((await stranded.describe()).status.name).toBe('TERMINATED'), {
        timeoutMs: 90_000,
        intervalMs: 500,
      });

      const httpPort = await freePort();
      const sweeper = spawnTsx(testStack().dataDir, 'main/sweeper.main.ts', [], {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: environment({
          DATABASE_URL: testStack().databaseUrl,
          TEMPORAL_ADDRESS: testStack().temporalAddress,
          TEMPORAL_TASK_QUEUE: taskQueue,
          DATA_DIR: testStack().dataDir,
          WORKER_HTTP_PORT: String(httpPort),
          EVM_DEPOSIT_SEED: TEST_DEPOSIT_SEED,
          EVM_DEPOSIT_XPUB: TEST_DEPOSIT_XPUBS.EVM_DEPOSIT_XPUB!,
          // Nothing answers there, and no deposit of another test is worth sweeping: its rounds only fail and retry.
          EVM_RPC_URL_POLYGON: 'http://127.0.0.1:1',
          EVM_CHAIN_ID_POLYGON: '31338',
          EVM_HOT_WALLET_KEY_POLYGON: `0x${'1'.repeat(64)}`,
          EVM_USDC_ADDRESS_POLYGON: `0x${'2'.repeat(40)}`,
          EVM_SWEEP_THRESHOLD_POL: '1000000000',
          EVM_SWEEP_THRESHOLD_USDC: '1000000000',
          // A node for bitcoin without BTC_DEPOSIT_SEED: said at start, not swept.
          UTXO_RPC_URL_BITCOIN: 'http://dev:dev@127.0.0.1:1',
          UTXO_HOT_WALLET_KEY_BITCOIN: HDKey.fromMasterSeed(randomBytes(32)).derive("m/84'/0'/0'").privateExtendedKey,
        }),
      });
      running.push(sweeper);
      let stderr = '';
      sweeper.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      await untilWorkerPolls(sweeperQueue);
      const ready = await eventually(
        async () => {
          expect(sweeper.exitCode).toBeNull();
          const response = await fetch(`http://127.0.0.1:${httpPort}/health/ready`);
          return (await response.json()) as { checks: Record<string, string> };
        },
        { timeoutMs: 30_000, intervalMs: 500 },
      );
      expect(ready.checks).toMatchObject({ polling: 'ok', postgres: 'ok' });
      const described = await client.workflow.getHandle(sweeperId).describe();
      expect([described.status.name, described.taskQueue]).toEqual(['RUNNING', sweeperQueue]);
      expect(stderr).toContain('bitcoin is not swept: no BTC_DEPOSIT_SEED here');
      expect(stderr).not.toContain(TEST_DEPOSIT_SEED.slice(0, 16));
    } finally {
      await client.workflow
        .getHandle(sweeperId)
        .terminate('test over')
        .catch(() => undefined);
      await close();
    }
  }, 180_000);
});
