import { isUnspecifiedAddress, joinHostPort, localUrl, reachableHost } from '../../core/listen-address';
import { devServerIp } from '../../dev/temporal-dev-server';

describe('listen addresses', () => {
  it.each(['0.0.0.0', '::', '0:0:0:0:0:0:0:0', '::0'])('%s is every interface', (host) => {
    expect(isUnspecifiedAddress(host)).toBe(true);
  });

  it.each(['127.0.0.1', '::1', '10.0.0.1', '0.0.0.1', 'localhost'])('%s is one interface', (host) => {
    expect(isUnspecifiedAddress(host)).toBe(false);
  });

  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['0.0.0.0', '127.0.0.1'],
    ['::', '::1'],
    ['::1', '::1'],
    ['192.168.1.20', '192.168.1.20'],
  ])('a listener on %s is reached on this machine at %s', (host, reachable) => {
    expect(reachableHost(host)).toBe(reachable);
  });

  it('writes an IPv6 address in brackets, in a host:port and in a URL', () => {
    expect(joinHostPort('127.0.0.1', 3000)).toBe('127.0.0.1:3000');
    expect(joinHostPort('::1', 3000)).toBe('[::1]:3000');
    expect(localUrl('0.0.0.0', 3000)).toBe('http://127.0.0.1:3000');
    expect(localUrl('::', 9464)).toBe('http://[::1]:9464');
    expect(localUrl('10.0.0.5', 9464)).toBe('http://10.0.0.5:9464');
  });
});

describe("the Temporal dev server's interface", () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['0.0.0.0', '0.0.0.0'],
    ['::', '::'],
    // The CLI reaches its own services on 127.0.0.1: on another single interface they stay on loopback (its Web UI binds HOST).
    ['127.0.0.2', '127.0.0.1'],
    ['192.168.1.20', '127.0.0.1'],
  ])('HOST=%s binds its services on %s', (host, ip) => {
    expect(devServerIp(host)).toBe(ip);
  });
});
