import { randomUUID } from 'node:crypto';
import { getAddress } from 'viem';
import { addWithdrawalAddressRoute } from '../../api/routes/add-withdrawal-address.route';
import { listWithdrawalAddressesRoute } from '../../api/routes/list-withdrawal-addresses.route';
import { parseExactJson } from '../../api/http/exact-json';
import { newWalletAddress } from '../../db/services/account-identifiers';
import { setPartnerPolicy } from '../../db/services/partner-policy.service';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { runOpsCli } from '../support/ops-cli';
import type { Route } from '../../api/routes/route';
import { useTestApi } from '../support/use-test-api';
import { startRegisteredWebhookReceiver } from '../support/webhook-receiver';

const MAX_BODY_BYTES = 4096;
const ctx = useTestApi({ maxBodyBytes: MAX_BODY_BYTES });
const PATH = '/v1/partner/withdrawal-addresses';
const DAY_MS = 24 * 60 * 60 * 1000;

const add = (partner: TestPartner, body: unknown, headers: Record<string, string> = {}) =>
  ctx.api.request('POST', PATH, { apiKey: partner.apiKey, body: body as object, headers });
const list = (partner: TestPartner) => ctx.api.request('GET', PATH, { apiKey: partner.apiKey });
const remove = (partner: TestPartner, id: string) => ctx.api.request('DELETE', `${PATH}/${id}`, { apiKey: partner.apiKey });

/** An eth entry for a fresh address. */
const ethEntry = (overrides: Record<string, unknown> = {}) => ({
  currency: 'eth',
  address: newWalletAddress('eth'),
  label: 'Treasury',
  ...overrides,
});

async function partnerWithCoolingOff(minutes: number): Promise<TestPartner> {
  const partner = await createTestPartner(ctx.orm);
  await ctx.orm.em
    .fork()
    .transactional((em) => setPartnerPolicy(em, partner.partnerId, { coolingOffMinutes: minutes }, 24 * 60, new Date()));
  return partner;
}

/** A body checked against the route's documented schema, as a careful partner parses it. */
function documented(route: Route, text: string): void {
  expect(route.response.body?.safeParse(parseExactJson(text)).error).toBeUndefined();
}

describe('POST /v1/partner/withdrawal-addresses', () => {
  it('adds an address PENDING for the default cooling-off (24 h), answering 201 with the entry', async () => {
    const partner = await createTestPartner(ctx.orm);
    const address = newWalletAddress('usdc');
    const before = Date.now();
    const response = await add(partner, { currency: 'USDC', network: 'Polygon', address, label: '  Cold wallet  ' });
    expect(response.status).toBe(201);
    documented(addWithdrawalAddressRoute, response.text);
    expect(response.json).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      currency: 'usdc',
      network: 'polygon',
      address,
      label: 'Cold wallet',
      status: 'PENDING',
      activeFrom: expect.any(String),
      createdAt: expect.any(String),
    });
    const createdAt = Date.parse(response.json.createdAt);
    expect(createdAt).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(response.json.activeFrom) - createdAt).toBe(DAY_MS);
  });

  it("uses the partner's own cooling-off; with 0 the entry is ACTIVE at once", async () => {
    const hour = await partnerWithCoolingOff(60);
    const pending = await add(hour, ethEntry());
    expect(pending.json.status).toBe('PENDING');
    expect(Date.parse(pending.json.activeFrom) - Date.parse(pending.json.createdAt)).toBe(60 * 60 * 1000);

    const none = await partnerWithCoolingOff(0);
    const active = await add(none, ethEntry());
    expect(active.status).toBe(201);
    expect(active.json.status).toBe('ACTIVE');
    expect(active.json.activeFrom).toBe(active.json.createdAt);
  });

  it.each([
    [
      { address: getAddress(newWalletAddress('eth')).replace(/[a-f]/, (c) => c.toUpperCase()) },
      'address: address has an invalid EIP-55 checksum',
    ],
    [{ address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' }, 'address: address is not a valid ethereum address'],
    [{ currency: 'btc', address: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx' }, 'address is a bitcoin testnet address'],
    [{ network: 'polygon' }, 'network: network must be ethereum for eth (its only network), or omitted'],
    [{ currency: 'usdc', network: 'solana' }, 'network: network must be one of ethereum, polygon for usdc'],
    [{ currency: 'xrp' }, 'currency: currency must be one of btc, doge, eth, ltc, pol, usdc'],
    [{ currency: 'eur' }, 'currency: currency must be one of'],
    [{ label: 'x'.repeat(101) }, 'label: label must be at most 100 characters'],
    [{ label: '   ' }, 'label: label is required'],
    [{ label: 'line\nbreak' }, 'label: must not contain control characters'],
    [{ address: `0x${'a'.repeat(200)}` }, 'address: address must be at most 128 characters'],
    [{ address: undefined }, 'address: address is required'],
    [{ allowlist: 'off' }, 'Unrecognized key: "allowlist"'],
  ])('refuses %j with 400 P400 saying what is wrong, adding nothing', async (overrides, message) => {
    const partner = await createTestPartner(ctx.orm);
    const response = await add(partner, ethEntry(overrides));
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ errorCode: 'P400', errorName: 'invalid-request' });
    expect(response.json.errorMessage).toContain(message);
    expect((await list(partner)).json).toEqual({ withdrawalAddresses: [] });
  });

  it('refuses a body over the size limit with 413 P413, unread', async () => {
    const partner = await createTestPartner(ctx.orm);
    const response = await add(partner, ethEntry({ label: 'x'.repeat(MAX_BODY_BYTES) }));
    expect(response.status).toBe(413);
    expect(response.json).toMatchObject({ errorCode: 'P413', errorName: 'payload-too-large' });
  });

  it('answers a duplicate (any letter case of an EVM address) with 200 and the entry unchanged; another network is another entry', async () => {
    const partner = await createTestPartner(ctx.orm);
    const address = newWalletAddress('usdc');
    const first = await add(partner, { currency: 'usdc', address, label: 'Payroll' });
    expect(first.status).toBe(201);
    const again = await add(partner, { currency: 'usdc', network: 'ETHEREUM', address: address.toLowerCase(), label: 'Another label' });
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    const onPolygon = await add(partner, { currency: 'usdc', network: 'polygon', address, label: 'Payroll on polygon' });
    expect(onPolygon.status).toBe(201);
    expect(onPolygon.json.id).not.toBe(first.json.id);
  });

  it('replays an Idempotency-Key with the first answer; the same key with another body is 409 P409', async () => {
    const partner = await createTestPartner(ctx.orm);
    const body = ethEntry();
    const first = await add(partner, body, { 'Idempotency-Key': 'book-1' });
    const replay = await add(partner, body, { 'Idempotency-Key': 'book-1' });
    expect([first.status, replay.status]).toEqual([201, 201]);
    expect(replay.json).toEqual(first.json);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await add(partner, ethEntry(), { 'Idempotency-Key': 'book-1' })).json.errorCode).toBe('P409');
  });
});

describe('GET and DELETE /v1/partner/withdrawal-addresses', () => {
  it('lists the live entries newest first; a deleted one is gone (204, then 404), and its address can be added anew', async () => {
    const partner = await partnerWithCoolingOff(0);
    const [a, b, c] = [
      await add(partner, ethEntry({ label: 'a' })),
      await add(partner, ethEntry({ label: 'b' })),
      await add(partner, ethEntry({ label: 'c' })),
    ];
    const listed = await list(partner);
    expect(listed.status).toBe(200);
    documented(listWithdrawalAddressesRoute, listed.text);
    expect(listed.json.withdrawalAddresses.map((entry: { label: string }) => entry.label)).toEqual(['c', 'b', 'a']);
    expect(listed.json.withdrawalAddresses[0]).toEqual(c.json);

    expect((await remove(partner, b.json.id)).status).toBe(204);
    const again = await remove(partner, b.json.id);
    expect(again.status).toBe(404);
    expect(again.json).toEqual({ errorCode: 'P404', errorName: 'not-found', errorMessage: 'no such withdrawal address' });
    expect((await list(partner)).json.withdrawalAddresses.map((entry: { id: string }) => entry.id)).toEqual([c.json.id, a.json.id]);

    // The row is kept (soft delete); re-adding the address is a new entry with a cooling-off of its own.
    const readded = await add(partner, { currency: 'eth', address: b.json.address, label: 'b again' });
    expect(readded.status).toBe(201);
    expect(readded.json.id).not.toBe(b.json.id);
    const rows = await ctx.orm.em
      .fork()
      .getConnection()
      .execute(
        `select id, deleted_at is not null as deleted from withdrawal_address where partner_id = ? and label like 'b%' order by created_at`,
        [partner.partnerId],
      );
    expect(rows).toEqual([
      { id: b.json.id, deleted: true },
      { id: readded.json.id, deleted: false },
    ]);
  });

  it("answers another partner's entry, an unknown id and a malformed one with 404 P404, and leaves the entry alone", async () => {
    const owner = await createTestPartner(ctx.orm);
    const other = await createTestPartner(ctx.orm);
    const entry = await add(owner, ethEntry());
    for (const id of [entry.json.id, randomUUID(), 'not-a-uuid']) {
      const response = await remove(other, id);
      expect({ id, status: response.status, errorCode: response.json?.errorCode }).toEqual({ id, status: 404, errorCode: 'P404' });
    }
    expect((await list(other)).json).toEqual({ withdrawalAddresses: [] });
    expect((await list(owner)).json.withdrawalAddresses).toEqual([entry.json]);
  });

  it('holds at most 100 live entries, even when adds race; a deletion makes room', async () => {
    const partner = await createTestPartner(ctx.orm);
    const first = await add(partner, ethEntry());
    for (let index = 1; index < 98; index += 1) expect((await add(partner, ethEntry())).status).toBe(201);
    // Two places left, five concurrent adds: the per-partner lock lets exactly two in.
    const racing = await Promise.all(Array.from({ length: 5 }, () => add(partner, ethEntry())));
    expect(racing.map((response) => response.status).sort()).toEqual([201, 201, 400, 400, 400]);
    const full = racing.find((response) => response.status === 400)!;
    expect(full.json).toEqual({
      errorCode: 'P400',
      errorName: 'invalid-request',
      errorMessage: 'the withdrawal-address book holds at most 100 addresses: delete one before adding another',
    });
    expect((await list(partner)).json.withdrawalAddresses).toHaveLength(100);
    // An address already in the book is still answered: it adds nothing.
    expect((await add(partner, { currency: 'eth', address: first.json.address, label: 'x' })).status).toBe(200);
    expect((await remove(partner, first.json.id)).status).toBe(204);
    expect((await add(partner, ethEntry())).status).toBe(201);
  }, 120_000);
});

describe('the address-book webhooks', () => {
  it('sends withdrawal_address.created and .deleted, signed, in that order, with the entry', async () => {
    const partner = await createTestPartner(ctx.orm);
    const target = await startRegisteredWebhookReceiver(partner.partnerId, ctx);

    const entry = await add(partner, { currency: 'btc', address: 'BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ', label: 'Exchange' });
    expect(entry.status).toBe(201);
    expect((await remove(partner, entry.json.id)).status).toBe(204);

    await eventually(async () => expect(target.received).toHaveLength(2), { timeoutMs: 30_000 });
    expect(target.received.every((request) => request.verified)).toBe(true);
    const [created, deleted] = target.received.map((request) => request.event);
    expect(created).toEqual({
      id: target.received[0]!.webhookId,
      type: 'withdrawal_address.created',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: entry.json,
    });
    expect(deleted).toEqual({
      id: target.received[1]!.webhookId,
      type: 'withdrawal_address.deleted',
      timestamp: expect.any(String),
      data: { ...entry.json, status: 'DELETED' },
    });
    // The body's keys in the documented order, the same bytes on every attempt.
    expect(Object.keys(JSON.parse(target.received[0]!.body).data)).toEqual([
      'id',
      'currency',
      'network',
      'address',
      'label',
      'status',
      'activeFrom',
      'createdAt',
    ]);
    const log = await runOpsCli(['webhook', 'deliveries', '--partner', partner.partnerId]);
    expect(
      log.output.events.map((event: { type: string; operationType: string; operationId: string; sequence: number }) => [
        event.type,
        event.operationType,
        event.operationId,
        event.sequence,
      ]),
    ).toEqual([
      ['withdrawal_address.deleted', 'withdrawal-address', entry.json.id, 2],
      ['withdrawal_address.created', 'withdrawal-address', entry.json.id, 1],
    ]);
  }, 120_000);
});
