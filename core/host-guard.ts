import type http from 'node:http';
import { isIP, isIPv4 } from 'node:net';

/**
 * DNS rebinding: a page of another site, its name pointed at 127.0.0.1 after it loaded, reaches a loopback listener from
 * an operator's browser as that site, with that site's name in the Host header. A listener that answers only Host values
 * naming this machine by address or as localhost (or a name it is told) answers no such page: a browser sends an address
 * or localhost only for a page that was loaded from it.
 */

/** What a Host header may hold: a name or an address, a port; anything else (user info, paths) is not a host. */
const HOST_HEADER = /^(?:\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/i;

export function isAllowedHost(hostHeader: string | undefined, names: readonly string[] = []): boolean {
  // No browser leaves it out; an HTTP/1.0 client of this machine may.
  if (hostHeader === undefined) return true;
  if (!HOST_HEADER.test(hostHeader)) return false;
  // A port past 65535, `256.1.1.1`, `a.1`: no URL, so no host of ours (and never a throw in a request listener).
  let hostname: string;
  try {
    hostname = new URL(`http://${hostHeader}`).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  } catch {
    return false;
  }
  if (isIP(hostname) !== 0 || hostname === 'localhost' || hostname.endsWith('.localhost')) return true;
  return names.some((name) => name.toLowerCase() === hostname);
}

/** 127.0.0.0/8, ::1 or localhost: a listener only this machine reaches, and so a browser on it. */
export function isLoopbackAddress(host: string): boolean {
  if (host.toLowerCase() === 'localhost') return true;
  if (isIPv4(host)) return host.startsWith('127.');
  return isIP(host) === 6 && new URL(`http://[${host}]/`).hostname === '[::1]';
}

/**
 * The listener, answering 421 to a Host it does not know: always with `always` (the codec endpoint, whose answers are
 * payloads in clear), else when bound to loopback (a listener on every interface is reached by names we cannot list).
 */
export function guardedByHost(
  listener: http.RequestListener,
  options: { bindHost: string; names?: readonly string[]; always?: boolean },
): http.RequestListener {
  if (!options.always && !isLoopbackAddress(options.bindHost)) return listener;
  const names = options.names ?? [];
  return (request, response) => {
    if (isAllowedHost(request.headers.host, names)) return listener(request, response);
    response.statusCode = 421;
    response.setHeader('Content-Type', 'application/json');
    response.setHeader('Connection', 'close');
    response.end(JSON.stringify({ message: 'this server answers only its own host names (by address, or localhost)' }));
  };
}
