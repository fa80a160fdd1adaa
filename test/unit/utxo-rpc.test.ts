import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { UtxoRpc } from '../../activities/adapters/chain/utxo/utxo-rpc';

/** A node's RPC as Bitcoin Core serves it under load: a few calls at a time, "Work queue depth exceeded" beyond its queue. */
describe('calls to a UTXO node', () => {
  let server: http.Server;
  let url: string;
  let inFlight = 0;
  let mostInFlight = 0;
  let busyAnswers = 0;

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const { id, method } = JSON.parse(body) as { id: number; method: string };
        if (method === 'busy' && busyAnswers > 0) {
          busyAnswers -= 1;
          response.writeHead(500).end('Work queue depth exceeded');
          return;
        }
        inFlight += 1;
        mostInFlight = Math.max(mostInFlight, inFlight);
        setTimeout(() => {
          inFlight -= 1;
          response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id, result: method, error: null }));
        }, 20);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://user:password@127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('keeps at most four calls in flight, however many are made at once, and answers each', async () => {
    const rpc = new UtxoRpc(url);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, index) => rpc.call<string>(`method${index}`)));
    expect(answers).toEqual(Array.from({ length: 30 }, (_, index) => `method${index}`));
    expect(mostInFlight).toBe(4);
  });

  it('asks again when the work queue is full, and gives up after five more tries', async () => {
    const rpc = new UtxoRpc(url);
    busyAnswers = 2;
    await expect(rpc.call('busy')).resolves.toBe('busy');
    busyAnswers = 6;
    await expect(rpc.call('busy')).rejects.toThrow("busy: the node's work queue is full");
  });
});
