import autocannon from 'autocannon';
import type { RunResult } from './run-result';

export interface HttpLoad {
  url: string;
  headers?: Record<string, string>;
  /** Headers per connection, taken in turn (e.g. one partner's key each); overrides `headers`. */
  connectionHeaders?: readonly Record<string, string>[];
  connections: number;
  durationMs: number;
  signal: AbortSignal;
}

/** Keep-alive connections, each sending its next request when the last one is answered (autocannon, in this process). */
export async function runHttpLoad(load: HttpLoad): Promise<RunResult> {
  let nextConnection = 0;
  const { connectionHeaders } = load;
  const instance = autocannon({
    url: load.url,
    headers: load.headers ?? {},
    ...(connectionHeaders && connectionHeaders.length > 0
      ? { setupClient: (client) => client.setHeaders(connectionHeaders[nextConnection++ % connectionHeaders.length]!) }
      : {}),
    connections: load.connections,
    duration: Math.max(1, Math.round(load.durationMs / 1000)),
    timeout: 30,
  });
  const stop = () => instance.stop();
  load.signal.addEventListener('abort', stop, { once: true });
  try {
    const result = await instance;
    const failed = result.non2xx + result.errors;
    const count = Math.max(0, result.requests.total - result.non2xx);
    const codes = Object.keys(result.statusCodeStats).filter((code) => !code.startsWith('2'));
    return {
      count,
      errors: failed,
      ...(failed > 0 ? { firstError: `${result.non2xx} non-2xx (${codes.join(', ') || 'none'}), ${result.errors} connection errors` } : {}),
      durationMs: result.duration * 1000,
      perSecond: count / result.duration,
      // No answer at all within the duration: no latency to report (autocannon says 0).
      p50Ms: count > 0 ? result.latency.p50 : Number.NaN,
      p99Ms: count > 0 ? result.latency.p99 : Number.NaN,
    };
  } finally {
    load.signal.removeEventListener('abort', stop);
  }
}
