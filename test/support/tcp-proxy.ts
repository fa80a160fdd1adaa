import net from 'node:net';

/**
 * A TCP proxy in the test's own process, for a test that cuts a connection: `cut()` resets every
 * connection through it and stops listening (the client sees resets, then "connection refused",
 * as with Toxiproxy's disabled proxy, without needing Go); `restore()` listens again on the same
 * port. The chaos run uses the real Toxiproxy (test/chaos/).
 */
export class TcpProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private readonly clients = new Set<net.Socket>();

  private constructor(
    readonly port: number,
    private readonly upstream: { host: string; port: number },
  ) {}

  static async start(upstreamAddress: string): Promise<TcpProxy> {
    const url = new URL(`tcp://${upstreamAddress}`);
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as net.AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const proxy = new TcpProxy(port, { host: url.hostname, port: Number(url.port) });
    await proxy.restore();
    return proxy;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async restore(): Promise<void> {
    if (this.server) return;
    const server = net.createServer((client) => {
      const upstream = net.connect(this.upstream.port, this.upstream.host);
      this.clients.add(client);
      client.on('close', () => this.clients.delete(client));
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.server = server;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.resetAndDestroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  /**
   * The connections open now die at the client's next write, unanswered: a server that went away
   * without the client noticing (a killed host, a NAT that forgot the flow) until it sends.
   */
  failOpenConnectionsAtNextWrite(): void {
    for (const client of this.clients) {
      client.prependOnceListener('data', () => {
        for (const each of this.sockets) each.destroy();
      });
    }
  }

  async stop(): Promise<void> {
    await this.cut();
  }
}
