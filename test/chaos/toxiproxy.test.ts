import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { createLogger } from '../../core/logger';
import { freePort } from '../../dev/free-port';
import type { ToxiproxyClient } from '../../dev/toxiproxy-client';
import { startToxiproxy } from './support/toxiproxy-server';
import type { RunningToxiproxy } from './support/toxiproxy-server';
import { testStack } from '../support/stack';

/**
 * The chaos run's Toxiproxy client against the real server (built with Go, or from the cache):
 * each toxic the nemesis uses does to a TCP echo service what its name says, on the stream it
 * names, and goes away when removed; a disabled proxy is a partition for the run's Postgres.
 */

let toxiproxy: RunningToxiproxy;
let client: ToxiproxyClient;
let echo: net.Server;
let echoPort: number;

beforeAll(async () => {
  // Recorded with the run's processes: the global teardown stops it if this file cannot.
  const dataDir = testStack().dataDir;
  toxiproxy = await startToxiproxy({
    dataDir,
    logFile: path.join(dataDir, `toxiproxy-${process.pid}.log`),
    seed: 1,
    log: createLogger('toxiproxy-test', 'warn'),
  });
  client = toxiproxy.client;
  echo = net.createServer((socket) => {
    // Toxiproxy resets or closes its side in some tests: not an error of the echo.
    socket.on('error', () => socket.destroy());
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  echoPort = (echo.address() as net.AddressInfo).port;
}, 120_000);

afterAll(async () => {
  echo?.close();
  await toxiproxy?.stop();
});

afterEach(async () => {
  await client.reset();
});

/** A proxy to the echo service on a free port; returns that port. */
async function echoProxy(name: string): Promise<number> {
  const port = await freePort();
  await client.createProxy(name, `127.0.0.1:${port}`, `127.0.0.1:${echoPort}`);
  return port;
}

/** Sends `bytes` through the port and resolves with how long the whole echo took, or rejects with the socket's error. */
function roundTrip(port: number, bytes: number, timeoutMs = 5_000): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let received = 0;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('timed out'));
    }, timeoutMs);
    socket.on('connect', () => socket.write(Buffer.alloc(bytes, 1)));
    socket.on('data', (chunk) => {
      received += chunk.length;
      if (received >= bytes) {
        clearTimeout(timer);
        socket.end();
        resolve(Date.now() - started);
      }
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      if (received < bytes) reject(new Error(`closed after ${received} of ${bytes} bytes`));
    });
  });
}

describe('Toxiproxy, driven over its HTTP API', () => {
  it('answers its version and lists a created proxy, enabled and without toxics', async () => {
    // Built from the module with `go install`, the binary carries no release tag: it says "git".
    expect(await client.version()).not.toBe('');
    const port = await echoProxy('listed');
    const proxy = await client.proxy('listed');
    expect(proxy).toMatchObject({
      name: 'listed',
      listen: `127.0.0.1:${port}`,
      upstream: `127.0.0.1:${echoPort}`,
      enabled: true,
      toxics: [],
    });
    expect(Object.keys(await client.proxies())).toContain('listed');
    await client.deleteProxy('listed');
    expect(Object.keys(await client.proxies())).not.toContain('listed');
  });

  it('latency on one stream delays the round trip by about that much, and nothing once removed', async () => {
    const port = await echoProxy('latency');
    expect(await roundTrip(port, 10)).toBeLessThan(200);
    await client.addToxic('latency', 'slow-down', 'downstream', { type: 'latency', attributes: { latency: 400, jitter: 0 } });
    expect(await roundTrip(port, 10)).toBeGreaterThanOrEqual(390);
    await client.addToxic('latency', 'slow-up', 'upstream', { type: 'latency', attributes: { latency: 400, jitter: 0 } });
    expect(await roundTrip(port, 10)).toBeGreaterThanOrEqual(790);
    await client.removeToxic('latency', 'slow-down');
    await client.removeToxic('latency', 'slow-up');
    // Removing one already gone is not an error: a fault's end may run twice.
    await client.removeToxic('latency', 'slow-up');
    expect(await roundTrip(port, 10)).toBeLessThan(200);
  });

  it('bandwidth limits the stream to its rate', async () => {
    const port = await echoProxy('bandwidth');
    // 64 KB at 64 KB/s downstream: about a second.
    await client.addToxic('bandwidth', 'narrow', 'downstream', { type: 'bandwidth', attributes: { rate: 64 } });
    expect(await roundTrip(port, 64 * 1024)).toBeGreaterThanOrEqual(700);
  });

  it('a timeout toxic blackholes the data and closes the connection after its timeout', async () => {
    const port = await echoProxy('blackhole');
    await client.addToxic('blackhole', 'hole', 'upstream', { type: 'timeout', attributes: { timeout: 500 } });
    await expect(roundTrip(port, 10, 3_000)).rejects.toThrow(/closed after 0 of 10 bytes|ECONNRESET/);
  });

  it('reset_peer resets the connection once data arrives', async () => {
    const port = await echoProxy('reset');
    await client.addToxic('reset', 'rst', 'upstream', { type: 'reset_peer', attributes: { timeout: 0 } });
    await expect(roundTrip(port, 10)).rejects.toThrow(/ECONNRESET|closed after 0/);
  });

  it("a disabled proxy partitions the run's Postgres from its client until enabled again", async () => {
    const port = await freePort();
    const postgres = new URL(testStack().databaseUrl);
    await client.createProxy('postgres', `127.0.0.1:${port}`, `127.0.0.1:${postgres.port}`);
    postgres.port = String(port);
    const query = async () => {
      const connection = new pg.Client({ connectionString: postgres.toString(), connectionTimeoutMillis: 2_000 });
      try {
        await connection.connect();
        return (await connection.query<{ one: number }>('select 1 as one')).rows[0]?.one;
      } finally {
        await connection.end().catch(() => undefined);
      }
    };
    expect(await query()).toBe(1);
    await client.setEnabled('postgres', false);
    await expect(query()).rejects.toThrow(/ECONNREFUSED/);
    await client.setEnabled('postgres', true);
    expect(await query()).toBe(1);
  });
});
