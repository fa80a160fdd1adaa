import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import pg from 'pg';
import { createWebhookDeliveryActivities } from '../../activities/webhook-delivery.activities';
import type { WebhookDeliveryRound } from '../../contracts';
import { systemClock } from '../../core/clock';
import { createLogger } from '../../core/logger';
import { newWalletAddress } from '../../db/services/account-identifiers';
import { webhookUrlOf } from '../../db/services/webhook-endpoint.service';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import { naturalSepaTransferBody } from '../support/sepa-payment.fixture';
import type { TestPartner } from '../support/fixtures';
import { registerUser } from '../support/operations';
import { runOpsCli } from '../support/ops-cli';
import { testStack } from '../support/stack';
import { TEST_WORKER_SETTINGS } from '../support/test-config';
import { useTestApi } from '../support/use-test-api';
import { startWebhookReceiver } from '../support/webhook-receiver';
import type { ReceivedWebhook, WebhookReceiver } from '../support/webhook-receiver';

const ctx = useTestApi();
const ops = (...args: string[]) => runOpsCli(args);

/** A receiver stopped after the file's tests, passed or failed. */
async function receiver(options: Parameters<typeof startWebhookReceiver>[0] = {}): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver(options);
  ctx.defer(() => started.stop());
  return started;
}

/** `webhook set` for the receiver, which learns the secret printed once. */
async function register(partner: TestPartner, target: WebhookReceiver): Promise<void> {
  const set = await ops('webhook', 'set', '--partner', partner.partnerId, '--url', target.url);
  expect(set.code).toBe(0);
  target.secret = set.output.secret;
}

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
  ofOperation(target, operationId).map(({ event }) => `${event.data.sequence} ${event.data.status} ${event.data.stage}`);

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
    const pool = new pg.Pool({ connectionString: testStack().databaseUrl, max: 4 });
    ctx.defer(() => pool.end());
    const dispatchers = [new MockActivityEnvironment(), new MockActivityEnvironment()];
    const activities = createWebhookDeliveryActivities({
      pool,
      clock: systemClock,
      log: createLogger('webhook-test', 'error'),
      webhookDelivery: { retryBaseMs: 200 },
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
      message: 'the webhook URL must use https:// (plain http:// only for a loopback address: 127.0.0.0/8, ::1 or localhost)',
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

  it.each([
    ['http://example.com/hooks', 'must use https://'],
    ['ftp://example.com/hooks', 'must use https://'],
    ['http://10.0.0.1/hooks', 'must use https://'],
    ['http://[::2]/hooks', 'must use https://'],
    ['http://localhost.example.com/hooks', 'must use https://'],
    ['https://user:secret@example.com/hooks', 'must not carry credentials'],
    ['https://example.com/hooks#part', 'must not have a fragment'],
    ['https://example.com/ho\noks', 'must not contain spaces or control characters'],
    [' https://example.com/hooks', 'must not contain spaces or control characters'],
    ['/hooks', 'must be an absolute URL'],
    ['', 'must be 1 to 2048 characters'],
  ])('refuses the webhook URL %j: it %s', (url, rule) => {
    expect(() => webhookUrlOf(url)).toThrow(rule);
  });

  it.each([
    ['https://example.com/hooks', 'https://example.com/hooks'],
    ['http://127.0.0.1:8080/hooks', 'http://127.0.0.1:8080/hooks'],
    ['http://127.1.2.3/hooks', 'http://127.1.2.3/hooks'],
    ['http://[::1]:9/hooks', 'http://[::1]:9/hooks'],
    ['http://LOCALHOST/hooks', 'http://localhost/hooks'],
  ])('accepts the webhook URL %j as %j', (url, stored) => {
    expect(webhookUrlOf(url)).toBe(stored);
  });

  it('bounds the webhook URL to 2048 characters', () => {
    const path = (length: number) => `https://example.com/${'a'.repeat(length - 'https://example.com/'.length)}`;
    expect(webhookUrlOf(path(2048))).toBe(path(2048));
    expect(() => webhookUrlOf(path(2049))).toThrow('must be 1 to 2048 characters');
    // Measured again once normalised: a space-free text can grow when percent-encoded.
    expect(() => webhookUrlOf(`https://example.com/${'é'.repeat(1000)}`)).toThrow('at most 2048 characters once normalised');
  });
});
