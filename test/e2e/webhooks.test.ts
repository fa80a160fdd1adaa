import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createWebhookDeliveryActivities } from '../../activities/webhook-delivery.activities';
import type { WebhookDeliveryRound } from '../../contracts';
import type { OperationWebhookEvent } from '../../core/webhook-event';
import { systemClock } from '../../core/clock';
import { createLogger } from '../../core/logger';
import { newWalletAddress } from '../../db/services/account-identifiers';
import { setWebhookEndpoint } from '../../db/services/webhook-endpoint.service';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import { naturalSepaTransferBody } from '../support/sepa-payment.fixture';
import type { TestPartner } from '../support/fixtures';
import { registerUser } from '../support/operations';
import { runOpsCli } from '../support/ops-cli';
import { testStack } from '../support/stack';
import { TEST_WORKER_SETTINGS } from '../support/test-config';
import { useTestApi } from '../support/use-test-api';
import { registerWebhookReceiver, startWebhookReceiver } from '../support/webhook-receiver';
import type { ReceivedWebhook, WebhookReceiver } from '../support/webhook-receiver';
import { endPool, openPool } from '../../db/pool';

const ctx = useTestApi();
const ops = (...args: string[]) => runOpsCli(args);

/** A receiver stopped after the file's tests, passed or failed. */
async function receiver(options: Parameters<typeof startWebhookReceiver>[0] = {}): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver(options);
  ctx.defer(() => started.stop());
  return started;
}

/** `webhook set` for the receiver, which learns the secret printed once. */
const register = (partner: TestPartner, target: WebhookReceiver) => registerWebhookReceiver(partner.partnerId, target);

const withdraw = (partner: TestPartner, path: string, body: Record<string, unknown>) =>
  ctx.api.request('POST', path, { apiKey: partner.apiKey, body });

async function exchange(partner: TestPartner): Promise<string> {
  const lock = await ctx.api.request('GET', '/v1/partner/get-lock', { apiKey: partner.apiKey });
  const response = await ctx.api.request('POST', '/v1/partner/exchange', {
    apiKey: partner.apiKey,
    body: { amount: 100, currencyFrom: 'eur', currencyTo: 'btc', lockId: lock.json.id },
  });
  expect(response.status).toBe(201);
  return response.json.exchangeId;
}

async function sepaTransfer(partner: TestPartner): Promise<string> {
  const response = await ctx.api.request('POST', '/v1/partner/sepa-transfer', {
    apiKey: partner.apiKey,
    body: naturalSepaTransferBody(),
  });
  expect(response.status).toBe(201);
  return response.json.transferId;
}

const ofOperation = (target: WebhookReceiver, operationId: string): ReceivedWebhook[] =>
  target.received.filter((request) => request.event.data.id === operationId);

/** Status and stage of each event of one operation, in arrival order. */
const progressOf = (target: WebhookReceiver, operationId: string) =>
  ofOperation(target, operationId).map(({ event }) => {
    const { data } = event as OperationWebhookEvent;
    return `${data.sequence} ${data.status} ${data.stage}`;
  });

describe('webhooks', () => {
  it('delivers every status change of a withdrawal, a SEPA transfer and an exchange, signed, each operation in order', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '2', eur: '1000' } });
    await registerUser(ctx.orm, partner, 'hook-user-1');
    const target = await receiver();
    await register(partner, target);

    const withdrawal = await withdraw(partner, '/v1/crypto-withdrawal', {
      currency: 'eth',
      amount: 0.5,
      walletAddress: newWalletAddress('eth'),
      name: 'Jan Kowalski',
      walletType: 'CUSTODIAL',
      receiverType: 'NATURAL',
      sourceExternalUserId: 'hook-user-1',
    });
    expect(withdrawal.status).toBe(200);
    const denied = await withdraw(partner, '/v1/partner/crypto-withdrawal', {
      currency: 'eth',
      amount: 0.1,
      walletAddress: TEST_WORKER_SETTINGS.DENY_LIST_ADDRESSES,
      name: 'Jan Kowalski',
      walletType: 'CUSTODIAL',
      receiverType: 'NATURAL',
    });
    expect(denied.status).toBe(200);
    const transferId = await sepaTransfer(partner);
    const exchangeId = await exchange(partner);
    const withdrawalId: string = withdrawal.json.withdrawalId;
    const deniedId: string = denied.json.withdrawalId;

    await eventually(
      async () => {
        expect(progressOf(target, withdrawalId).at(-1)).toBe('4 SUCCESSFUL SETTLED');
        expect(progressOf(target, deniedId).at(-1)).toBe('2 UNSUCCESSFUL FAILED');
        expect(progressOf(target, transferId).at(-1)).toBe('3 SUCCESSFUL SETTLED');
        expect(progressOf(target, exchangeId)).toEqual(['1 SUCCESSFUL SETTLED']);
      },
      { timeoutMs: 30_000 },
    );
    expect(progressOf(target, withdrawalId)).toEqual([
      '1 IN_PROGRESS RESERVED',
      '2 IN_PROGRESS BROADCASTING',
      '3 IN_PROGRESS BROADCAST',
      '4 SUCCESSFUL SETTLED',
    ]);
    expect(progressOf(target, deniedId)).toEqual(['1 IN_PROGRESS RESERVED', '2 UNSUCCESSFUL FAILED']);
    expect(progressOf(target, transferId)).toEqual(['1 IN_PROGRESS RESERVED', '2 IN_PROGRESS SUBMITTED', '3 SUCCESSFUL SETTLED']);

    // Every request verified with the secret printed at registration, each event exactly once.
    expect(target.received).toHaveLength(10);
    expect(target.received.filter((request) => !request.verified)).toEqual([]);
    expect(new Set(target.received.map((request) => request.webhookId)).size).toBe(10);
    for (const { webhookId, event, body } of target.received) {
      expect(event.id).toBe(webhookId);
      expect(webhookId).toMatch(/^evt_[0-9a-f]{32}$/);
      expect(Date.parse(event.timestamp)).not.toBeNaN();
      // No personal data: ids, status, stage, failure reason and sequence only.
      expect(Object.keys(event).sort()).toEqual(['data', 'id', 'timestamp', 'type']);
      expect(body).not.toContain('Kowalski');
      expect(body).not.toContain('Curie');
    }
    const [firstOfWithdrawal] = ofOperation(target, withdrawalId);
    expect(firstOfWithdrawal?.event).toEqual({
      id: firstOfWithdrawal?.webhookId,
      type: 'crypto_withdrawal.status_changed',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: { id: withdrawalId, userId: 'hook-user-1', status: 'IN_PROGRESS', stage: 'RESERVED', failureReason: null, sequence: 1 },
    });
    expect(ofOperation(target, deniedId)[1]?.event.data).toEqual({
      id: deniedId,
      status: 'UNSUCCESSFUL',
      stage: 'FAILED',
      failureReason: 'destination address is on the deny list',
      sequence: 2,
    });
    expect(ofOperation(target, transferId).map(({ event }) => event.type)).toEqual(Array(3).fill('sepa_transfer.status_changed'));
    expect(ofOperation(target, exchangeId)[0]?.event).toMatchObject({
      type: 'exchange.status_changed',
      data: { id: exchangeId, status: 'SUCCESSFUL', stage: 'SETTLED', failureReason: null, sequence: 1 },
    });

    const log = await ops('webhook', 'deliveries', '--partner', partner.partnerId, '--limit', '100');
    expect(log.code).toBe(0);
    expect(log.output.endpoint).toEqual({ url: target.url, createdAt: expect.any(String), updatedAt: expect.any(String) });
    expect(log.output.events).toHaveLength(10);
    for (const event of log.output.events) {
      expect(event).toMatchObject({ deliveryStatus: 'delivered', attempts: 1, lastError: null, nextAttemptAt: null });
      expect(event.deliveryAttempts).toEqual([
        { attempt: 1, attemptedAt: expect.any(String), httpStatus: 200, error: null, durationMs: expect.any(Number) },
      ]);
    }
    // Newest first.
    const created = log.output.events.map((event: { createdAt: string }) => event.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
    expect(JSON.stringify(log.output)).not.toContain(target.secret);
  }, 120_000);

  it('retries a failing receiver with the same webhook-id until it answers 2xx, and logs every attempt', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '1000' } });
    const target = await receiver({ answer: (attempt) => (attempt <= 2 ? 500 : 200) });
    await register(partner, target);
    const exchangeId = await exchange(partner);

    await eventually(async () => expect(target.received.map((request) => request.answeredStatus)).toEqual([500, 500, 200]), {
      timeoutMs: 20_000,
    });
    const [first] = target.received;
    expect(target.received.every((request) => request.verified && request.webhookId === first?.webhookId)).toBe(true);
    expect(target.received.map((request) => request.body)).toEqual(Array(3).fill(first?.body));
    expect(first?.event.data).toMatchObject({ id: exchangeId, sequence: 1 });

    const log = await eventually(async () => {
      const result = await ops('webhook', 'deliveries', '--partner', partner.partnerId);
      expect(result.output.events[0].deliveryStatus).toBe('delivered');
      return result.output;
    });
    expect(log.events).toHaveLength(1);
    expect(log.events[0]).toMatchObject({ id: first?.webhookId, operationId: exchangeId, attempts: 3, lastError: null });
    expect(
      log.events[0].deliveryAttempts.map((attempt: { httpStatus: number; error: string | null }) => [attempt.httpStatus, attempt.error]),
    ).toEqual([
      [500, 'HTTP 500'],
      [500, 'HTTP 500'],
      [200, null],
    ]);
  }, 120_000);

  it('dispatchers running side by side deliver each event once, each operation in order', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '10000' } });
    // Slow answers keep deliveries under way while the other dispatchers look for work.
    const target = await receiver({ delayMs: 150 });
    await register(partner, target);
    // Two more dispatchers beside the worker's, in this process, on a pool of their own.
    const pool = openPool({ connectionString: testStack().databaseUrl, max: 4 });
    ctx.defer(() => endPool(pool));
    const dispatchers = [new MockActivityEnvironment(), new MockActivityEnvironment()];
    const activities = createWebhookDeliveryActivities({
      pool,
      clock: systemClock,
      log: createLogger('webhook-test', 'error'),
      webhookDelivery: { retryBaseMs: 200 },
      webhookTargets: { allowLoopback: true },
    });
    const rounds = dispatchers.map((environment) =>
      environment.run((round: WebhookDeliveryRound) => activities.deliverWebhookEvents(round), { roundMs: 60_000 }),
    );
    ctx.defer(() => Promise.allSettled(rounds));

    const operations = await Promise.all([
      sepaTransfer(partner),
      sepaTransfer(partner),
      ...Array.from({ length: 6 }, () => exchange(partner)),
    ]);
    // Stopped only once all is delivered: a dispatcher stopped mid-delivery hands the event back, to be sent again.
    const openEvents = async (): Promise<number> => {
      const [row] = await ctx.orm.em
        .fork()
        .getConnection()
        .execute(
          `select count(*)::int as open from webhook_event where partner_id = ? and (delivered_at is null or claimed_until is not null)`,
          [partner.partnerId],
        );
      return row?.open;
    };
    await eventually(
      async () => {
        expect(target.received.length).toBeGreaterThanOrEqual(2 * 3 + 6);
        expect(await openEvents()).toBe(0);
      },
      { timeoutMs: 30_000 },
    );
    for (const environment of dispatchers) environment.cancel();
    const results = await Promise.all(rounds);

    expect(target.received).toHaveLength(12);
    expect(new Set(target.received.map((request) => request.webhookId)).size).toBe(12);
    expect(target.received.every((request) => request.verified)).toBe(true);
    for (const transferId of operations.slice(0, 2)) {
      expect(progressOf(target, transferId)).toEqual(['1 IN_PROGRESS RESERVED', '2 IN_PROGRESS SUBMITTED', '3 SUCCESSFUL SETTLED']);
    }
    for (const result of results) expect(result).toMatchObject({ failedAttempts: 0, givenUp: 0, interrupted: true });
  });

  it('writes no events for a partner without an endpoint, nor after its endpoint is removed', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '1000' } });
    const before = await exchange(partner);
    const target = await receiver();
    await register(partner, target);
    const during = await exchange(partner);
    await eventually(async () => expect(target.received.map((request) => request.event.data.id)).toEqual([during]));
    // An update that changes no status makes no event.
    await ctx.orm.em.fork().getConnection().execute(`update exchange set status = status where id = ?`, [during]);

    const removed = await ops('webhook', 'remove', '--partner', partner.partnerId);
    expect(removed.output).toEqual({ partnerId: partner.partnerId, removed: true, eventsGivenUp: 0 });
    const after = await exchange(partner);

    const rows = await ctx.orm.em
      .fork()
      .getConnection()
      .execute(`select operation_id from webhook_event where partner_id = ?`, [partner.partnerId]);
    expect(rows).toEqual([{ operation_id: during }]);
    expect(before).not.toBe(after);
    const log = await ops('webhook', 'deliveries', '--partner', partner.partnerId);
    expect(log.output.endpoint).toBeNull();
    expect(target.received).toHaveLength(1);
  }, 120_000);

  it('webhook set refuses plain http to a public host; accepts https, prints a new secret each time and never again', async () => {
    const partner = await createTestPartner(ctx.orm);
    const refused = await ops('webhook', 'set', '--partner', partner.partnerId, '--url', 'http://example.com/hooks');
    expect(refused.code).toBe(1);
    expect(refused.output).toEqual({
      error: 'invalid-request',
      message: 'the webhook URL must use https:// (plain http:// only to a loopback host: 127.0.0.0/8, ::1 or localhost)',
    });
    const unknownPartner = await ops('webhook', 'set', '--partner', randomUUID(), '--url', 'https://example.com/hooks');
    expect(unknownPartner.output.error).toBe('partner-not-found');

    const set = await ops('webhook', 'set', '--partner', partner.partnerId, '--url', 'https://Example.com:8443/hooks?partner=1');
    expect(set.code).toBe(0);
    expect(set.output).toEqual({
      partnerId: partner.partnerId,
      url: 'https://example.com:8443/hooks?partner=1',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      rotated: false,
    });
    const again = await ops('webhook', 'set', '--partner', partner.partnerId, '--url', 'http://localhost:9/hooks');
    expect(again.output).toMatchObject({ url: 'http://localhost:9/hooks', rotated: true });
    expect(again.output.secret).not.toBe(set.output.secret);

    const log = await ops('webhook', 'deliveries', '--partner', partner.partnerId);
    expect(log.output).toEqual({
      partnerId: partner.partnerId,
      endpoint: { url: 'http://localhost:9/hooks', createdAt: expect.any(String), updatedAt: expect.any(String) },
      events: [],
    });
    expect(JSON.stringify(log.output)).not.toContain('whsec_');
    expect((await ops('webhook', 'remove', '--partner', partner.partnerId)).output).toMatchObject({ removed: true });
    expect((await ops('webhook', 'remove', '--partner', partner.partnerId)).output).toMatchObject({ removed: false });
  }, 120_000);

  it('webhook set refuses private, link-local and loopback targets, literal or resolved, naming the host and why; stores nothing', async () => {
    const partner = await createTestPartner(ctx.orm);
    // Production: loopback is not allowed either.
    const production = { WEBHOOK_ALLOW_LOOPBACK: 'false' };
    const refusals: Array<[string, string]> = [
      [
        'https://169.254.169.254/latest/meta-data',
        '169.254.169.254 is a link-local address (169.254.0.0/16): only public addresses are allowed',
      ],
      ['https://10.1.2.3/hooks', '10.1.2.3 is a private address (10.0.0.0/8): only public addresses are allowed'],
      ['https://[fd00::1]/hooks', 'fd00::1 is a private address (fc00::/7): only public addresses are allowed'],
      ['http://localhost:8080/hooks', 'localhost is a loopback name: loopback only while WEBHOOK_ALLOW_LOOPBACK=true'],
    ];
    for (const [url, reason] of refusals) {
      const refused = await runOpsCli(['webhook', 'set', '--partner', partner.partnerId, '--url', url], production);
      expect({ url, code: refused.code, output: refused.output }).toEqual({
        url,
        code: 1,
        output: { error: 'invalid-request', message: `the webhook URL's host ${reason}` },
      });
    }
    // Loopback allowed (a machine with a local receiver) does not open the private network.
    const privateWithLoopback = await ops('webhook', 'set', '--partner', partner.partnerId, '--url', 'https://192.168.1.10/hooks');
    expect(privateWithLoopback.output.message).toBe(
      "the webhook URL's host 192.168.1.10 is a private address (192.168.0.0/16): only public addresses are allowed",
    );
    // A name that resolves to a private address: the service's check with the answer the test gives.
    const resolvedPrivate = ctx.orm.em.fork().transactional((em) =>
      setWebhookEndpoint(em, partner.partnerId, 'https://hooks.partner.example/in', new Date(), {
        policy: { allowLoopback: false },
        resolve: async () => [
          { address: '93.184.216.34', family: 4 },
          { address: '10.20.30.40', family: 4 },
        ],
      }),
    );
    await expect(resolvedPrivate).rejects.toThrow(
      "the webhook URL's host hooks.partner.example resolves to a private address (10.0.0.0/8): only public addresses are allowed",
    );
    const stored = await ctx.orm.em
      .fork()
      .getConnection()
      .execute(`select 1 from webhook_endpoint where partner_id = ?`, [partner.partnerId]);
    expect(stored).toEqual([]);

    // A name that does not resolve now (.invalid never does) is accepted: each delivery checks it.
    const unresolved = await runOpsCli(
      ['webhook', 'set', '--partner', partner.partnerId, '--url', 'https://hooks.partner.invalid/in'],
      production,
    );
    expect(unresolved.output).toMatchObject({ url: 'https://hooks.partner.invalid/in', rotated: false });
    expect((await ops('webhook', 'remove', '--partner', partner.partnerId)).output).toMatchObject({ removed: true });
  }, 120_000);

  it('a delivery checks the name again: once its DNS answer is a private address, the attempt fails as not allowed and nothing is sent', async () => {
    const partner = await createTestPartner(ctx.orm);
    const target = await receiver({ host: '127.0.0.2' });
    // Registered by name; the test's resolver decides where the name leads at each delivery.
    const url = `http://localhost:${target.port}/hooks`;
    const set = await ops('webhook', 'set', '--partner', partner.partnerId, '--url', url);
    expect(set.code).toBe(0);
    target.secret = set.output.secret;
    const dns = { answer: '127.0.0.2', asked: 0 };
    // Events due a day from now, and a dispatcher whose clock is there: the run's own dispatcher
    // (today, the system resolver) never touches them.
    const dayMs = 24 * 60 * 60_000;
    const clock = { now: () => new Date(Date.now() + dayMs + 60_000) };
    const pool = openPool({ connectionString: testStack().databaseUrl, max: 2 });
    ctx.defer(() => endPool(pool));
    const activities = createWebhookDeliveryActivities({
      pool,
      clock,
      log: createLogger('webhook-test', 'error'),
      webhookDelivery: { retryBaseMs: 60 * 60_000 },
      webhookTargets: {
        allowLoopback: true,
        resolve: async () => {
          dns.asked += 1;
          return [{ address: dns.answer, family: 4 }];
        },
      },
    });
    const insertEvent = async (): Promise<string> => {
      const id = `evt_${randomUUID().replaceAll('-', '')}`;
      const dueAt = new Date(Date.now() + dayMs);
      const payload = {
        id,
        type: 'exchange.status_changed',
        timestamp: dueAt.toISOString(),
        data: { id: randomUUID(), status: 'SUCCESSFUL', stage: 'SETTLED', failureReason: null, sequence: 1 },
      };
      await pool.query(
        `insert into webhook_event (id, partner_id, operation_type, operation_id, sequence, type, payload, created_at, next_attempt_at)
         values ($1, $2, 'exchange', $3, 1, 'exchange.status_changed', $4, $5, $5)`,
        [id, partner.partnerId, payload.data.id, payload, dueAt],
      );
      return id;
    };
    const round = () =>
      new MockActivityEnvironment().run((input: WebhookDeliveryRound) => activities.deliverWebhookEvents(input), { roundMs: 1_500 });

    const first = await insertEvent();
    expect(await round()).toMatchObject({ delivered: 1, failedAttempts: 0 });
    // Sent to the address the resolver gave, by name (its signature dates from the dispatcher's clock, a day ahead).
    expect(target.received.map((request) => [request.webhookId, request.hostHeader])).toEqual([[first, `localhost:${target.port}`]]);

    dns.answer = '10.0.0.1';
    const second = await insertEvent();
    expect(await round()).toMatchObject({ delivered: 0, failedAttempts: 1 });
    expect(target.received).toHaveLength(1);
    expect(dns.asked).toBe(2);

    const log = await ops('webhook', 'deliveries', '--partner', partner.partnerId);
    const refused = log.output.events.find((event: { id: string }) => event.id === second);
    expect(refused).toMatchObject({ deliveryStatus: 'pending', attempts: 1 });
    expect(refused.deliveryAttempts).toEqual([
      {
        attempt: 1,
        attemptedAt: expect.any(String),
        httpStatus: null,
        error:
          'the target address is not allowed: localhost resolves to a private address (10.0.0.0/8): only public addresses are allowed; not connected',
        durationMs: expect.any(Number),
      },
    ]);
    // The resolved address is not in the log: it would map the private network for whoever reads it.
    expect(JSON.stringify(log.output)).not.toContain('10.0.0.1');
    expect((await ops('webhook', 'remove', '--partner', partner.partnerId)).output).toMatchObject({ removed: true, eventsGivenUp: 1 });
  }, 120_000);

  it('a partner whose endpoint hangs holds a few delivery slots, not all: another partner’s events still go out at once', async () => {
    const slow = await createTestPartner(ctx.orm, { deposits: { eur: '10000' } });
    const hanging = await receiver({ hang: true });
    await register(slow, hanging);
    // More operations than the dispatcher has slots, each with an event due now.
    await Promise.all(Array.from({ length: 24 }, () => exchange(slow)));
    await eventually(async () => expect(hanging.received.length).toBeGreaterThanOrEqual(1));

    const other = await createTestPartner(ctx.orm, { deposits: { eur: '1000' } });
    const target = await receiver();
    await register(other, target);
    const exchangeId = await exchange(other);
    await eventually(async () => expect(progressOf(target, exchangeId)).toEqual(['1 SUCCESSFUL SETTLED']), { timeoutMs: 30_000 });
    // Told by order, not by seconds: the slow partner's 24 events are older, so without a
    // per-partner cap they would take every slot first (each for the 10 s request timeout) and
    // this event would go out only after all of them had been tried. With the cap some of them
    // have still never been tried (four at a time, 10 s each, is a minute for all of them).
    const [untried] = await ctx.orm.em
      .fork()
      .getConnection()
      .execute(
        `select count(*)::int as events from webhook_event e
          where e.partner_id = ? and e.delivered_at is null and e.given_up_at is null
            and (e.claimed_until is null or e.claimed_until <= now())
            and not exists (select 1 from webhook_delivery_attempt a where a.event_id = e.id)`,
        [slow.partnerId],
      );
    expect(untried?.events).toBeGreaterThan(0);
    // Meanwhile the slow partner's deliveries under way stay at the cap.
    const [underWay] = await ctx.orm.em
      .fork()
      .getConnection()
      .execute(
        `select count(*)::int as deliveries from webhook_event
          where partner_id = ? and claimed_until > now() and delivered_at is null and given_up_at is null`,
        [slow.partnerId],
      );
    expect(underWay?.deliveries).toBeGreaterThanOrEqual(1);
    expect(underWay?.deliveries).toBeLessThanOrEqual(4);
    expect((await ops('webhook', 'remove', '--partner', slow.partnerId)).output).toMatchObject({ removed: true });
  }, 120_000);
});
