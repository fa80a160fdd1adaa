import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { startTestApi } from '../support/http';
import type { TestApi } from '../support/http';
import { balancesOf, ethWithdrawalBody } from '../support/operations';
import { startTestWorker } from '../support/test-worker';
import type { TestWorker } from '../support/test-worker';
import { useTestApi } from '../support/use-test-api';

/**
 * Admission control (operations/temporal/admission.ts): while the workers are too far behind to
 * serve a new operation within the answer deadline, a POST is refused at once, before anything is
 * recorded or started, so the backlog can drain and the service recovers by itself (issue 21: the
 * 60-minute chaos run stayed overloaded for 15 minutes with no fault left).
 */
const ctx = useTestApi();

const sql = async <Row>(query: string, params: unknown[] = []): Promise<Row[]> => ctx.orm.em.fork().getConnection().execute(query, params);

async function withdraw(through: TestApi, partner: TestPartner, body: Record<string, unknown>, key: string) {
  const startedAt = Date.now();
  const response = await through.request('POST', '/v1/partner/crypto-withdrawal', {
    apiKey: partner.apiKey,
    body,
    headers: { 'idempotency-key': key },
  });
  return { ...response, tookMs: Date.now() - startedAt };
}

async function acceptedCount(partner: TestPartner): Promise<number> {
  const [row] = await sql<{ count: number }>(`select count(*)::int as count from accepted_operation where partner_id = ?`, [
    partner.partnerId,
  ]);
  return row!.count;
}

describe('a workflow backlog older than the deadline allows', () => {
  it('refuses new operations at once without starting them, and admits again once the workers catch up', async () => {
    // No worker polls this queue yet: every workflow started on it waits.
    const queue = `backlog-${randomUUID()}`;
    const RESPONSE_TIMEOUT_MS = 1_000; // the backlog bound is then its floor, 5 s
    const impatient = await startTestApi({ taskQueue: queue, responseTimeoutMs: RESPONSE_TIMEOUT_MS });
    let worker: TestWorker | undefined;
    try {
      const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
      const first = await withdraw(impatient, partner, ethWithdrawalBody(), 'backlog-first');
      expect(first.status).toBe(503);
      expect(first.json.errorMessage).toMatch(/not confirmed in time/);

      // Once the waiting workflow is older than the bound (and Temporal's 5 s cache of the figures
      // has turned over), a new operation is refused before it is recorded: no wait, no workflow.
      await sleep(5_000);
      const body = ethWithdrawalBody();
      const refused = await eventually(
        async () => {
          const before = await acceptedCount(partner);
          const answer = await withdraw(impatient, partner, body, 'backlog-refused');
          expect(answer.json.errorMessage).toMatch(/behind on its work/);
          expect(await acceptedCount(partner)).toBe(before);
          return answer;
        },
        { timeoutMs: 20_000 },
      );
      expect(refused.status).toBe(503);
      expect(refused.json).toMatchObject({ errorCode: 'P503', errorName: 'service-unavailable' });
      expect(refused.json.errorMessage).toMatch(/nothing was moved/);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.tookMs).toBeLessThan(RESPONSE_TIMEOUT_MS);
      expect((await balancesOf(ctx.api, partner)).eth).toBe('1.000000000000000000');

      // A worker arrives: the backlog drains (the abandoned workflows end, moving nothing), and the
      // refused key, retried, is a withdrawal like any other.
      worker = await startTestWorker({ taskQueue: queue });
      const admitted = await eventually(
        async () => {
          const answer = await withdraw(impatient, partner, body, 'backlog-refused');
          expect(answer.status).toBe(200);
          return answer;
        },
        { timeoutMs: 30_000 },
      );
      expect(typeof admitted.json.withdrawalId).toBe('string');
      await eventually(async () => expect((await balancesOf(ctx.api, partner)).eth).toBe('0.899500000000000000'), { timeoutMs: 20_000 });
    } finally {
      await worker?.stop();
      await impatient.stop();
    }
  }, 90_000);
});
