/**
 * A small typed client of Toxiproxy's HTTP API (the server dev/toxiproxy-build.ts builds): proxies
 * (create, enable and disable for a partition, delete) and toxics on one stream of a proxy.
 * `upstream` is what the client sends towards the server, `downstream` what comes back; a toxic on
 * both directions is two toxics, one per stream. Every call is bounded by a timeout, and every
 * answer but the one expected is an error naming the call and Toxiproxy's message.
 */

export type ToxicStream = 'upstream' | 'downstream';

/** The toxics the chaos run uses, with their attributes as Toxiproxy v2 names them (milliseconds, KB/s). */
export type ToxicSpec =
  /** Adds `latencyMs` ± `jitterMs` to every chunk of data. */
  | { type: 'latency'; attributes: { latency: number; jitter: number } }
  /** Limits the stream to `rate` KB/s. */
  | { type: 'bandwidth'; attributes: { rate: number } }
  /** A blackhole: no data passes; the connection is closed after `timeout` ms (0: held open until the toxic goes). */
  | { type: 'timeout'; attributes: { timeout: number } }
  /** The connection is reset (TCP RST) `timeout` ms after data arrives. */
  | { type: 'reset_peer'; attributes: { timeout: number } };

export interface Toxic {
  name: string;
  stream: ToxicStream;
  /** The share of connections it applies to, 0 to 1. */
  toxicity: number;
  type: ToxicSpec['type'];
  attributes: Record<string, number>;
}

export interface Proxy {
  name: string;
  /** host:port it listens on. */
  listen: string;
  /** host:port it forwards to. */
  upstream: string;
  enabled: boolean;
  toxics: Toxic[];
}

const REQUEST_TIMEOUT_MS = 5_000;

export class ToxiproxyClient {
  constructor(readonly url: string) {}

  /** The server's version (also: whether it answers). */
  async version(): Promise<string> {
    return (await this.call('GET', '/version', undefined, [200])).trim();
  }

  /** A proxy listening on `listen` (host:port) and forwarding to `upstream` (host:port), enabled. */
  async createProxy(name: string, listen: string, upstream: string): Promise<Proxy> {
    return JSON.parse(await this.call('POST', '/proxies', { name, listen, upstream, enabled: true }, [201])) as Proxy;
  }

  async proxy(name: string): Promise<Proxy> {
    return JSON.parse(await this.call('GET', `/proxies/${encodeURIComponent(name)}`, undefined, [200])) as Proxy;
  }

  async proxies(): Promise<Record<string, Proxy>> {
    return JSON.parse(await this.call('GET', '/proxies', undefined, [200])) as Record<string, Proxy>;
  }

  /**
   * Disabled, a proxy closes its connections and refuses new ones (a partition: the other side
   * sees resets, then "connection refused"); enabled again, it listens on the same address.
   */
  async setEnabled(name: string, enabled: boolean): Promise<void> {
    await this.call('POST', `/proxies/${encodeURIComponent(name)}`, { enabled }, [200]);
  }

  async deleteProxy(name: string): Promise<void> {
    await this.call('DELETE', `/proxies/${encodeURIComponent(name)}`, undefined, [204]);
  }

  /** Adds a toxic named `toxicName` on one stream; `toxicity` 1 (every connection) unless given. */
  async addToxic(proxyName: string, toxicName: string, stream: ToxicStream, spec: ToxicSpec, toxicity = 1): Promise<Toxic> {
    const body = { name: toxicName, type: spec.type, stream, toxicity, attributes: spec.attributes };
    return JSON.parse(await this.call('POST', `/proxies/${encodeURIComponent(proxyName)}/toxics`, body, [200])) as Toxic;
  }

  /** Removes the toxic; one already gone is not an error (a fault's end may run twice: after its time, and at the run's end). */
  async removeToxic(proxyName: string, toxicName: string): Promise<void> {
    await this.call('DELETE', `/proxies/${encodeURIComponent(proxyName)}/toxics/${encodeURIComponent(toxicName)}`, undefined, [204, 404]);
  }

  /** Every proxy enabled again and every toxic removed. */
  async reset(): Promise<void> {
    await this.call('POST', '/reset', undefined, [204]);
  }

  private async call(method: string, path: string, body: unknown, expected: readonly number[]): Promise<string> {
    const response = await fetch(this.url + path, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    if (!expected.includes(response.status)) {
      throw new Error(`toxiproxy ${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
    }
    return text;
  }
}
