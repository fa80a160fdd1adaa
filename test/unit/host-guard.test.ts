import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { guardedByHost, isAllowedHost, isLoopbackAddress } from '../../core/host-guard';

describe('the Host guard (DNS rebinding)', () => {
  it.each([
    ['127.0.0.1:3000', true],
    ['[::1]:3000', true],
    ['10.0.0.5', true],
    ['localhost:3000', true],
    ['app.localhost', true],
    ['LOCALHOST', true],
    [undefined, true],
    ['evil.example', false],
    ['evil.example:3000', false],
    ['127.0.0.1.nip.io', false],
    ['evil.example@127.0.0.1', false],
    ['127.0.0.1/x', false],
    ['', false],
    ['x:70000', false],
    ['256.1.1.1', false],
    ['a.1', false],
    ['1.2.3.4.5', false],
    ['[::1::]', false],
  ])('Host %s: %s', (host, allowed) => {
    expect(isAllowedHost(host)).toBe(allowed);
  });

  it('answers the names it is told, in any case', () => {
    expect(isAllowedHost('Codec.Ops.Example:443', ['codec.ops.example'])).toBe(true);
    expect(isAllowedHost('other.ops.example', ['codec.ops.example'])).toBe(false);
  });

  it.each([
    ['127.0.0.1', true],
    ['127.8.9.1', true],
    ['::1', true],
    ['0:0:0:0:0:0:0:1', true],
    ['localhost', true],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.5', false],
  ])('%s is loopback: %s', (host, loopback) => {
    expect(isLoopbackAddress(host)).toBe(loopback);
  });

  async function statusFor(bindHost: string, host: string, always = false): Promise<number> {
    const server = http.createServer(guardedByHost((_request, response) => response.end('ok'), { bindHost, always }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      return await new Promise<number>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: '/', headers: { host } }, (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          })
          .on('error', reject);
      });
    } finally {
      server.close();
    }
  }

  it('refuses a foreign name on a loopback listener with 421, and leaves a listener on every interface (unless always) alone', async () => {
    expect(await statusFor('127.0.0.1', 'evil.example')).toBe(421);
    expect(await statusFor('127.0.0.1', 'localhost:1')).toBe(200);
    expect(await statusFor('0.0.0.0', 'api.internal')).toBe(200);
    expect(await statusFor('0.0.0.0', 'evil.example', true)).toBe(421);
  });
});
