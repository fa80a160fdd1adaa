import { isIP, isIPv4, isIPv6 } from 'node:net';

/** What development servers bind unless HOST says otherwise. */
export const LOOPBACK = '127.0.0.1';

export function isIpAddress(text: string): boolean {
  return isIP(text) !== 0;
}

/** 0.0.0.0 or :: (in any spelling): every interface. */
export function isUnspecifiedAddress(host: string): boolean {
  if (isIPv4(host)) return host === '0.0.0.0';
  // The URL parser writes an IPv6 address in its shortest form: [::] for every spelling of it.
  return isIPv6(host) && new URL(`http://[${host}]/`).hostname === '[::]';
}

/** Where a client on this machine reaches a listener bound to `host`: an unspecified address through loopback. */
export function reachableHost(host: string): string {
  if (!isUnspecifiedAddress(host)) return host;
  return isIPv6(host) ? '::1' : LOOPBACK;
}

/** `host:port` as a URL, a gRPC address or a socket address writes it: an IPv6 address in brackets. */
export function joinHostPort(host: string, port: number): string {
  return `${isIPv6(host) ? `[${host}]` : host}:${port}`;
}

/** `http://127.0.0.1:3000`: where this machine reaches a listener bound to host and port. */
export function localUrl(host: string, port: number): string {
  return `http://${joinHostPort(reachableHost(host), port)}`;
}
