import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { defaultPayloadConverter } from '@temporalio/common';
import type { Payload } from '@temporalio/common';
import { startCodecServer } from '../../api/codec/codec-server';
import type { RunningCodecServer } from '../../api/codec/codec-server';
import { AesGcmPayloadCodec } from '../../core/payload-codec';
import { createLogger } from '../../core/logger';

const TOKEN = 'codec-token-for-tests-0123456789';
const UI_ORIGIN = 'http://127.0.0.1:8233';
/** An origin allowed to call with the token, not without. */
const CLI_PAGE_ORIGIN = 'http://127.0.0.1:9000';

function toJson(payload: Payload) {
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
    ),
    data: Buffer.from(payload.data!).toString('base64'),
  };
}

describe('the codec endpoint (decode only)', () => {
  const codec = new AesGcmPayloadCodec([{ id: 'k1', key: randomBytes(32) }]);
  let server: RunningCodecServer;
  let base: string;

  beforeAll(async () => {
    server = await startCodecServer({
      codec,
      token: TOKEN,
      allowedOrigins: [CLI_PAGE_ORIGIN],
      trustedOrigins: [UI_ORIGIN],
      allowedHosts: ['codec.ops.example'],
      port: 0,
      host: '127.0.0.1',
      log: createLogger('test', 'error'),
    });
    base = server.endpointUrl;
  });
  afterAll(() => server.stop());

  async function sealedBody() {
    const sealed = await codec.encode([defaultPayloadConverter.toPayload({ iban: 'DE89370400440532013000' })]);
    return JSON.stringify({ payloads: sealed.map(toJson) });
  }

  it("hands out an endpoint without the token, and decodes for the Web UI's pages (by their origin) and the token in a bearer header", async () => {
    expect(server.endpointUrl).not.toContain(TOKEN);
    const callers: Array<Record<string, string>> = [
      { origin: UI_ORIGIN },
      { authorization: `Bearer ${TOKEN}` },
      { authorization: `Bearer ${TOKEN}`, origin: CLI_PAGE_ORIGIN },
    ];
    for (const headers of callers) {
      const response = await fetch(`${base}/decode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: await sealedBody(),
      });
      expect(response.status).toBe(200);
      const { payloads } = (await response.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> };
      const payload = {
        metadata: Object.fromEntries(Object.entries(payloads[0]!.metadata).map(([key, value]) => [key, Buffer.from(value, 'base64')])),
        data: Buffer.from(payloads[0]!.data, 'base64'),
      };
      expect(defaultPayloadConverter.fromPayload(payload)).toEqual({ iban: 'DE89370400440532013000' });
    }
  });

  it('refuses without the token, with a wrong one, with the token in the path, and anything but POST /decode', async () => {
    expect((await fetch(`${base}/decode`, { method: 'POST', body: await sealedBody() })).status).toBe(401);
    const wrong = { authorization: 'Bearer not-the-token-0123456789' };
    expect((await fetch(`${base}/decode`, { method: 'POST', headers: wrong, body: await sealedBody() })).status).toBe(401);
    // An origin allowed by CORS still needs the token; only the trusted one does not.
    const corsOnly = { origin: CLI_PAGE_ORIGIN };
    expect((await fetch(`${base}/decode`, { method: 'POST', headers: corsOnly, body: await sealedBody() })).status).toBe(401);
    // A path is not where the token goes: the UI hands its endpoint URL to every browser.
    expect((await fetch(`${base}/${TOKEN}/decode`, { method: 'POST', body: await sealedBody() })).status).toBe(404);
    const bearer = { authorization: `Bearer ${TOKEN}` };
    expect((await fetch(`${base}/encode`, { method: 'POST', headers: bearer, body: await sealedBody() })).status).toBe(404);
    expect((await fetch(`${base}/decode`, { headers: bearer })).status).toBe(405);
    expect((await fetch(`${base}/decode`, { method: 'POST', headers: bearer, body: 'not json' })).status).toBe(400);
  });

  it('answers no page whose site rebound its name to this address (421), and the names it is told', async () => {
    const request = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const url = new URL(`${base}/decode`);
        const call = http.request(
          {
            host: url.hostname,
            port: url.port,
            path: '/decode',
            method: 'POST',
            headers: { host, origin: UI_ORIGIN, 'content-type': 'application/json' },
          },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        call.on('error', reject);
        call.end(JSON.stringify({ payloads: [] }));
      });
    expect(await request('evil.example:8234')).toBe(421);
    expect(await request('127.0.0.1.evil.example')).toBe(421);
    expect(await request('codec.ops.example:8234')).toBe(200);
    expect(await request('localhost:8234')).toBe(200);
    expect(await request('127.0.0.1:8234')).toBe(200);
  });

  it("answers the UI origin's preflight, and no other origin", async () => {
    const preflight = await fetch(`${base}/decode`, { method: 'OPTIONS', headers: { origin: UI_ORIGIN } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('x-namespace');
    const stranger = await fetch(`${base}/decode`, { method: 'OPTIONS', headers: { origin: 'https://evil.example' } });
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
  });
});
