import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import type { Payload } from '@temporalio/common';
import { startCodecServer } from '../../api/codec/codec-server';
import type { RunningCodecServer } from '../../api/codec/codec-server';
import { AesGcmPayloadCodec } from '../../core/payload-codec';
import { createLogger } from '../../core/logger';

const TOKEN = 'codec-token-for-tests-0123456789';
const UI_ORIGIN = 'http://127.0.0.1:8233';

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
      allowedOrigins: [UI_ORIGIN],
      port: 0,
      host: '127.0.0.1',
      log: createLogger('test', 'error'),
    });
    base = new URL(server.endpointUrl).origin;
  });
  afterAll(() => server.stop());

  async function sealedBody() {
    const sealed = await codec.encode([defaultPayloadConverter.toPayload({ iban: 'DE89370400440532013000' })]);
    return JSON.stringify({ payloads: sealed.map(toJson) });
  }

  it('decodes for the token in the path (the Web UI) and in a bearer header (the CLI)', async () => {
    for (const [url, headers] of [
      [`${server.endpointUrl}/decode`, {}],
      [`${base}/decode`, { authorization: `Bearer ${TOKEN}` }],
    ] as const) {
      const response = await fetch(url, {
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

  it('refuses without the token, with a wrong one, and anything but POST /decode', async () => {
    expect((await fetch(`${base}/decode`, { method: 'POST', body: await sealedBody() })).status).toBe(401);
    expect((await fetch(`${base}/not-the-token-0123456789/decode`, { method: 'POST', body: await sealedBody() })).status).toBe(401);
    expect((await fetch(`${server.endpointUrl}/encode`, { method: 'POST', body: await sealedBody() })).status).toBe(404);
    expect((await fetch(`${server.endpointUrl}/decode`)).status).toBe(405);
    expect((await fetch(`${server.endpointUrl}/decode`, { method: 'POST', body: 'not json' })).status).toBe(400);
  });

  it("answers the UI origin's preflight, and no other origin", async () => {
    const preflight = await fetch(`${server.endpointUrl}/decode`, { method: 'OPTIONS', headers: { origin: UI_ORIGIN } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('x-namespace');
    const stranger = await fetch(`${server.endpointUrl}/decode`, { method: 'OPTIONS', headers: { origin: 'https://evil.example' } });
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
  });
});
