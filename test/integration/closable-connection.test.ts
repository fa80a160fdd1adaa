import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectClosable } from '../../operations/temporal/closable-connection';

/**
 * A frontend that answers the connection check and refuses everything else as UNAVAILABLE (a
 * retryable status), so a call sits in the client's retry timer when its connection closes.
 */
async function refusingFrontend(): Promise<{ address: string; calls: () => number; stop(): Promise<void> }> {
  let calls = 0;
  const server = http2.createServer();
  server.on('stream', (stream, headers) => {
    stream.on('data', () => undefined);
    stream.on('end', () => {
      if (String(headers[':path']).endsWith('/GetSystemInfo')) {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        // An empty GetSystemInfoResponse: one uncompressed message of length 0.
        stream.end(Buffer.alloc(5));
        return;
      }
      calls += 1;
      stream.respond(
        { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '14', 'grpc-message': 'refused' },
        { endStream: true },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls: () => calls,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('a Temporal client connection closed while a call waits to be retried', () => {
  it('ends the call with its last error and throws nothing after the close', async () => {
    const frontend = await refusingFrontend();
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      const { connection, close } = await connectClosable({ address: frontend.address });
      const call = connection.workflowService.describeNamespace({ namespace: 'default' }).then(
        () => 'answered',
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      // The first attempt is refused and a retry timer is set (100 ms and more, growing).
      while (frontend.calls() < 1) await sleep(10);
      await close();
      expect(await call).toMatch(/UNAVAILABLE|refused/);
      const attemptsAtClose = frontend.calls();
      // Longer than any retry timer set before the close could still run.
      await sleep(1_500);
      expect(frontend.calls()).toBe(attemptsAtClose);
      expect(attemptsAtClose).toBeLessThan(10);
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
      await frontend.stop();
    }
  });
});
