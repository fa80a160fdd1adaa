import net from 'node:net';

/**
 * A TCP port free on 127.0.0.1 right now (the OS picks it), for a server started next. Left in
 * TIME_WAIT (a connection to it, closed from the server's side first), so for a minute the OS
 * gives it to no other `listen(0)` (a test's server, the Temporal dev server's internal ports),
 * while the server it is meant for still binds it (SO_REUSEADDR: Node, Go and Postgres set it).
 * The same as the Temporal CLI's own GetFreePort.
 */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as net.AddressInfo;
  try {
    const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
    const client = net.connect(port, '127.0.0.1');
    client.on('error', () => undefined);
    const socket = await accepted;
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    // The server's side closes first: it is the one left in TIME_WAIT, holding the port.
    socket.destroySoon();
    await closed;
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return port;
}

/** Whether a server could listen on host and port right now (nothing holds it). */
export async function isPortFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}
