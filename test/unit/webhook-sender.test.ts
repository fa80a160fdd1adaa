import { randomBytes, randomUUID } from 'node:crypto';
import type { HostResolver, ResolvedAddress, WebhookTargetPolicy } from '../../core/webhook-target';
import type { WebhookEvent } from '../../core/webhook-event';
import { postWebhook, signWebhookRequest } from '../../activities/webhook-sender';
import { startWebhookReceiver } from '../support/webhook-receiver';
import type { WebhookReceiver } from '../support/webhook-receiver';

const LOCAL: WebhookTargetPolicy = { allowLoopback: true };
const PRODUCTION: WebhookTargetPolicy = { allowLoopback: false };

/** A name no real resolver knows: a connection to it can only go where the test's resolver says. */
const NAME = 'hooks.partner.test';

/** A resolver whose answer the test changes, counting the questions. */
function dns(...answers: string[]): HostResolver & { answers: string[]; asked: number } {
  const resolve = Object.assign(
    async (): Promise<readonly ResolvedAddress[]> => {
      resolve.asked += 1;
      return resolve.answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
    { answers, asked: 0 },
  );
  return resolve;
}

const event = (): WebhookEvent => ({
  id: `evt_${randomUUID().replaceAll('-', '')}`,
  type: 'exchange.status_changed',
  timestamp: new Date().toISOString(),
  data: { id: randomUUID(), status: 'SUCCESSFUL', stage: 'SETTLED', failureReason: null, sequence: 1 },
});

const receivers: WebhookReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.stop()));
});

/** A receiver on 127.0.0.2: nothing a system resolver answers for any name points there. */
async function receiver(options: Parameters<typeof startWebhookReceiver>[0] = {}): Promise<WebhookReceiver & { secret: string }> {
  const started = await startWebhookReceiver({ host: '127.0.0.2', ...options });
  receivers.push(started);
  started.secret = `whsec_${randomBytes(32).toString('base64')}`;
  return started as WebhookReceiver & { secret: string };
}

function send(
  url: string,
  target: WebhookReceiver & { secret: string },
  policy: WebhookTargetPolicy,
  resolve: HostResolver,
  timeoutMs = 5_000,
) {
  return postWebhook(url, signWebhookRequest(event(), target.secret, new Date()), {
    timeoutMs,
    stop: new AbortController().signal,
    targets: { policy, resolve },
  });
}

describe('a webhook POST', () => {
  it('connects to the address the check approved, with the URL’s own host in the Host header', async () => {
    const target = await receiver();
    const resolve = dns('127.0.0.2');
    const outcome = await send(`http://${NAME}:${target.port}/hooks`, target, LOCAL, resolve);
    expect(outcome).toMatchObject({ httpStatus: 200, error: null, interrupted: false });
    expect(target.received).toHaveLength(1);
    expect(target.received[0]).toMatchObject({ verified: true, hostHeader: `${NAME}:${target.port}` });
    expect(resolve.asked).toBe(1);
  });

  it('refuses a name whose answer changed to a private address after an accepted delivery, and never connects (DNS rebinding)', async () => {
    const target = await receiver();
    const resolve = dns('127.0.0.2');
    const url = `https://${NAME}:${target.port}/hooks`.replace('https:', 'http:');
    expect((await send(url, target, LOCAL, resolve)).error).toBeNull();

    resolve.answers = ['10.0.0.1'];
    const refused = await send(url, target, LOCAL, resolve);
    expect(refused).toEqual({
      httpStatus: null,
      error:
        'the target address is not allowed: hooks.partner.test resolves to a private address (10.0.0.0/8): only public addresses are allowed; not connected',
      durationMs: expect.any(Number),
      interrupted: false,
    });
    // A name answering with a public and a link-local address is refused as a whole.
    resolve.answers = ['93.184.216.34', '169.254.169.254'];
    expect((await send(url, target, LOCAL, resolve)).error).toContain('resolves to a link-local address (169.254.0.0/16)');
    // The kept-alive connection of the first delivery was not used either.
    expect(target.received).toHaveLength(1);
    expect(resolve.asked).toBe(3);
  });

  it('refuses a loopback target in production without connecting: the attempt tells nothing of what listens there', async () => {
    const target = await receiver();
    for (const url of [
      `http://127.0.0.2:${target.port}/hooks`,
      `https://127.0.0.2:${target.port}/hooks`,
      `http://${NAME}:${target.port}/hooks`,
    ]) {
      const outcome = await send(url, target, PRODUCTION, dns('127.0.0.2'));
      expect(outcome.httpStatus).toBeNull();
      expect(outcome.error).toMatch(
        /^the target address is not allowed: .* loopback address \(127\.0\.0\.0\/8\): loopback only while WEBHOOK_ALLOW_LOOPBACK=true; not connected$/,
      );
    }
    // A closed port reads exactly the same: no connection error, no timing to probe with.
    const closed = await send('http://127.0.0.2:9/hooks', target, PRODUCTION, dns());
    expect(closed.error).toBe(
      'the target address is not allowed: 127.0.0.2 is a loopback address (127.0.0.0/8): loopback only while WEBHOOK_ALLOW_LOOPBACK=true; not connected',
    );
    expect(target.received).toHaveLength(0);
  });

  it('refuses plain http:// to a name that resolves beyond loopback, even where loopback is allowed', async () => {
    const target = await receiver();
    const outcome = await send(`http://${NAME}:${target.port}/hooks`, target, LOCAL, dns('127.0.0.2', '93.184.216.34'));
    expect(outcome.error).toBe(
      'the target address is not allowed: hooks.partner.test: plain http:// is refused (plain http:// only to a loopback host: 127.0.0.0/8, ::1 or localhost); not connected',
    );
    expect(target.received).toHaveLength(0);
  });

  it('records a name that does not resolve, and a connection refused by an allowed target, as failed attempts', async () => {
    const target = await receiver();
    const nowhere: HostResolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    expect((await send(`https://${NAME}/hooks`, target, PRODUCTION, nowhere)).error).toBe(
      'hooks.partner.test does not resolve (ENOTFOUND)',
    );
    const port = target.port;
    await target.stop();
    const refused = await send(`http://${NAME}:${port}/hooks`, target, LOCAL, dns('127.0.0.2'));
    expect(refused).toMatchObject({ httpStatus: null, interrupted: false });
    expect(refused.error).toContain('ECONNREFUSED');
  });

  it('gives up on an endpoint that does not answer within the timeout', async () => {
    const target = await receiver({ hang: true });
    const outcome = await send(`http://${NAME}:${target.port}/hooks`, target, LOCAL, dns('127.0.0.2'), 300);
    expect(outcome).toMatchObject({ httpStatus: null, error: 'no answer within 300 ms', interrupted: false });
    // Its 300 ms timeout, with room for a loaded machine: the receiver hangs for as long as it is let.
    expect(outcome.durationMs).toBeLessThan(10_000);
  });

  it('reports a 3xx as a failure: redirects are not followed', async () => {
    const target = await receiver({ answer: () => 307 });
    const outcome = await send(`http://${NAME}:${target.port}/hooks`, target, LOCAL, dns('127.0.0.2'));
    expect(outcome).toMatchObject({ httpStatus: 307, error: 'HTTP 307 (redirects are not followed)' });
  });
});

describe('the body of an event', () => {
  it('keeps a fixed key order whatever order the outbox stored it in, for a deposit event too', () => {
    const stored = {
      data: {
        transactionHash: `0x${'ab'.repeat(32)}`,
        amount: '0.000000000000000001',
        currency: 'eth',
        network: 'ethereum',
        sequence: 2,
        failureReason: null,
        stage: 'CREDITED',
        status: 'SUCCESSFUL',
        id: '4f1d7a2b-9c3e-4b5a-8d6f-0a1b2c3d4e5f',
      },
      timestamp: '2026-11-21T16:12:27.786Z',
      type: 'deposit.succeeded',
      id: 'evt_1',
    } as const satisfies WebhookEvent;
    const { body } = signWebhookRequest(stored, `whsec_${randomBytes(32).toString('base64')}`, new Date());
    expect(body).toBe(
      '{"id":"evt_1","type":"deposit.succeeded","timestamp":"2026-11-21T16:12:27.786Z","data":{"id":"4f1d7a2b-9c3e-4b5a-8d6f-0a1b2c3d4e5f",' +
        '"status":"SUCCESSFUL","stage":"CREDITED","failureReason":null,"sequence":2,"network":"ethereum","currency":"eth",' +
        `"amount":"0.000000000000000001","transactionHash":"0x${'ab'.repeat(32)}"}}`,
    );
  });

  it("puts a deposit's type after its id, and sends null for the chain fields of money that did not come on chain", () => {
    const stored = {
      data: {
        transactionHash: null,
        amount: '125.5',
        currency: 'eur',
        network: null,
        sequence: 1,
        failureReason: null,
        stage: 'CREDITED',
        status: 'SUCCESSFUL',
        type: 'sepaDeposit',
        id: '4f1d7a2b-9c3e-4b5a-8d6f-0a1b2c3d4e5f',
      },
      timestamp: '2026-11-21T16:12:27.786Z',
      type: 'deposit.succeeded',
      id: 'evt_2',
    } as const satisfies WebhookEvent;
    const { body } = signWebhookRequest(stored, `whsec_${randomBytes(32).toString('base64')}`, new Date());
    expect(body).toBe(
      '{"id":"evt_2","type":"deposit.succeeded","timestamp":"2026-11-21T16:12:27.786Z","data":{"id":"4f1d7a2b-9c3e-4b5a-8d6f-0a1b2c3d4e5f",' +
        '"type":"sepaDeposit","status":"SUCCESSFUL","stage":"CREDITED","failureReason":null,"sequence":1,"network":null,"currency":"eur",' +
        '"amount":"125.5","transactionHash":null}}',
    );
  });
});
