import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ReconciliationResult } from '../../activities/reconciliation.activities';
import { createTestPartner, openTestOrm } from '../support/fixtures';
import { testStack } from '../support/stack';

let orm: MikroORM;
let connection: Connection;
let client: Client;
beforeAll(async () => {
  orm = await openTestOrm();
  connection = await Connection.connect({ address: testStack().temporalAddress });
  client = new Client({ connection, namespace: testStack().namespace });
});
afterAll(async () => {
  await connection.close();
  await orm.close(true);
});

describe('reconciliation workflow', () => {
  it('runs on the worker through the real Temporal server, finds the ledger sound and stores a report', async () => {
    await createTestPartner(orm, { deposits: { eur: '50', btc: '1' } });
    const result: ReconciliationResult = await client.workflow.execute('reconciliationWorkflow', {
      taskQueue: testStack().taskQueue,
      workflowId: `ledger-reconciliation-test-${randomUUID()}`,
      args: [{ stuckAfterMs: 24 * 60 * 60 * 1000 }],
    });
    expect(result).toMatchObject({ ok: true, unbalancedTransfers: 0, balanceMismatches: 0, overdrawnAccounts: 0 });
    const rows = await orm.em.fork().getConnection().execute(`select ok from reconciliation_report where id = ?`, [result.reportId]);
    expect(rows).toEqual([{ ok: true }]);
  });

  it('reports a cached balance that no longer matches its postings', async () => {
    const partner = await createTestPartner(orm, { deposits: { ltc: '5' } });
    const connectionToDb = orm.em.fork().getConnection();
    // Simulate corruption by hand, then put it back so the suite's final ledger check stays meaningful.
    await connectionToDb.execute(`update account set posted_amount = posted_amount + 1 where id = ?`, [partner.accounts.ltc.id]);
    try {
      const result: ReconciliationResult = await client.workflow.execute('reconciliationWorkflow', {
        taskQueue: testStack().taskQueue,
        workflowId: `ledger-reconciliation-test-${randomUUID()}`,
        args: [{ stuckAfterMs: 60_000 }],
      });
      expect(result.ok).toBe(false);
      expect(result.balanceMismatches).toBeGreaterThanOrEqual(1);
    } finally {
      await connectionToDb.execute(`update account set posted_amount = posted_amount - 1 where id = ?`, [partner.accounts.ltc.id]);
    }
  });
});
