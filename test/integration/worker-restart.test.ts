import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { newWalletAddress } from '../../db/services/account-identifiers';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import { balancesOf, untilWorkerPolls } from '../support/operations';
import { killProcessGroup, spawnTsx } from '../support/processes';
import { testStack } from '../support/stack';
import { EVERY_RAIL_SIMULATED } from '../support/test-config';
import { useTestApi } from '../support/use-test-api';

const taskQueue = `worker-restart-${randomUUID()}`;

/**
 * The production worker entry point, as its own process (group: tsx runs the worker in a child
 * process, and both must die together), on a task queue only this test uses. Recorded, so the
 * run kills it even if this file never reaches its afterAll.
 */
function startWorkerProcess(): ChildProcess {
  const worker = spawnTsx(testStack().dataDir, 'main/worker.main.ts', [], {
    stdio: 'ignore',
    env: {
      ...process.env,
      DATABASE_URL: testStack().databaseUrl,
      TEMPORAL_ADDRESS: testStack().temporalAddress,
      TEMPORAL_TASK_QUEUE: taskQueue,
      DATA_DIR: testStack().dataDir,
      // Long enough to kill the worker while the withdrawal waits for its confirmation.
      CHAIN_CONFIRMATION_DELAY_MS: '4000',
      LOG_LEVEL: 'warn',
      SIMULATED_RAILS: EVERY_RAIL_SIMULATED,
    },
  });
  ctx.defer(() => killProcessGroup(worker));
  return worker;
}

const ctx = useTestApi({ taskQueue });

describe('a worker killed mid-withdrawal', () => {
  it('is replaced by a new one that completes the withdrawal exactly once', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
    const first = startWorkerProcess();
    await untilWorkerPolls(taskQueue);
    const response = await ctx.api.request('POST', '/v1/partner/crypto-withdrawal', {
      apiKey: partner.apiKey,
      body: {
        currency: 'eth',
        amount: 0.25,
        walletAddress: newWalletAddress('eth'),
        name: 'Jan Kowalski',
        walletType: 'CUSTODIAL',
        receiverType: 'NATURAL',
      },
    });
    expect(response.status).toBe(200);
    const withdrawalId = response.json.withdrawalId as string;
    const connection = ctx.orm.em.fork().getConnection();
    const stateOf = async () =>
      (
        await connection.execute<{ stage: string; status: string; transaction_hash: string | null }[]>(
          `select stage, status, transaction_hash from crypto_withdrawal where id = ?`,
          [withdrawalId],
        )
      )[0]!;

    const broadcast = await eventually(
      async () => {
        const state = await stateOf();
        expect(state.stage).toBe('BROADCAST');
        return state;
      },
      { timeoutMs: 60_000 },
    );
    await killProcessGroup(first);
    expect((await stateOf()).status).toBe('IN_PROGRESS');

    startWorkerProcess();
    const settled = await eventually(
      async () => {
        const state = await stateOf();
        expect(state.status).toBe('SUCCESSFUL');
        return state;
      },
      { timeoutMs: 90_000 },
    );
    expect(settled.transaction_hash).toBe(broadcast.transaction_hash);

    // Exactly once: one transfer, posted, with its three postings; the balance debited once.
    const transfers = await connection.execute<{ state: string; postings: string }[]>(
      `select t.state, count(p.id)::text as postings from ledger_transfer t join ledger_posting p on p.transfer_id = t.id
        where t.id = ? group by t.state`,
      [withdrawalId],
    );
    expect(transfers).toEqual([{ state: 'POSTED', postings: '3' }]);
    expect((await balancesOf(ctx.api, partner)).eth).toBe('0.749500000000000000');
  }, 180_000);
});
