import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { DomainError } from './errors';
import { ADDRESS_KIND_TEXT, specialAddressOf } from './network-address';

/**
 * Whoever registers an endpoint chooses its URL: the worker must not become a way into the networks only
 * it can reach. Checked at registration and at every delivery, which connects to the very addresses
 * checked (activities/webhook-sender.ts), so DNS rebinding is refused then.
 */
export interface WebhookTargetPolicy {
  /** WEBHOOK_ALLOW_LOOPBACK: loopback targets, plain http:// included, for a local receiver. */
  allowLoopback: boolean;
  /** The connecting machine's interfaces: public or not, they lead to its own services. */
  ownAddresses?: readonly string[];
}

/** What the webhook_endpoint.url column holds at most. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a name resolves to (the system's resolver in production; tests inject their own). */
export type HostResolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const systemHostResolver: HostResolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/** The URL's name (for TLS and Host) and the only addresses a connection to it may use. */
export interface CheckedTarget {
  hostname: string;
  addresses: readonly ResolvedAddress[];
}

/** Why a target is not used: refused by the rules, or its name did not resolve (yet). */
export type TargetProblem = { problem: 'refused'; message: string } | { problem: 'unresolved'; message: string };

/** The URL as stored, or invalid-request saying what is wrong; a name's addresses are checkWebhookTarget's to check. */
export function webhookUrlOf(text: string, policy: WebhookTargetPolicy): URL {
  if (text.length === 0 || text.length > MAX_WEBHOOK_URL_LENGTH) throw invalid(`must be 1 to ${MAX_WEBHOOK_URL_LENGTH} characters`);
  // The URL parser would silently drop tabs and newlines: refuse them instead.
  if (/[\s\p{Cc}]/u.test(text)) throw invalid('must not contain spaces or control characters');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid('must be an absolute URL, such as https://example.com/webhooks');
  }
  // Before the host: in https://good.example@10.0.0.1/ the host is 10.0.0.1, whatever the eye reads.
  if (url.username || url.password) throw invalid('must not carry credentials (user:password@)');
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid(`must use https:// (${httpRule(policy)})`);
  if (url.hash) throw invalid('must not have a fragment (#…)');
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH) throw invalid(`must be at most ${MAX_WEBHOOK_URL_LENGTH} characters once normalised`);
  const host = hostnameOf(url);
  const literal = isIP(host) !== 0;
  const refused = literal ? addressProblem(host, [host], policy) : localhostProblem(host, policy);
  if (refused) throw new DomainError('invalid-request', `the webhook URL's host ${refused}`);
  const loopbackHost = literal || isLocalhostName(host);
  if (url.protocol === 'http:' && !(policy.allowLoopback && loopbackHost)) throw invalid(`must use https:// (${httpRule(policy)})`);
  return url;
}

/** One refused address refuses the target (a connection may use any). Never throws: the caller decides what a problem means. */
export async function checkWebhookTarget(
  url: URL,
  policy: WebhookTargetPolicy,
  resolve: HostResolver,
  signal: AbortSignal,
): Promise<CheckedTarget | TargetProblem> {
  const hostname = hostnameOf(url);
  const family = isIP(hostname);
  let addresses: readonly ResolvedAddress[];
  if (family !== 0) {
    addresses = [{ address: hostname, family: family as 4 | 6 }];
  } else {
    const byName = localhostProblem(hostname, policy);
    if (byName) return { problem: 'refused', message: byName };
    try {
      addresses = await abortable(resolve(hostname), signal);
    } catch (error) {
      return { problem: 'unresolved', message: `${hostname} does not resolve (${lookupErrorCode(error, signal)})` };
    }
    if (addresses.length === 0) return { problem: 'unresolved', message: `${hostname} does not resolve (no addresses)` };
  }
  const texts = addresses.map(({ address }) => address);
  const refused = addressProblem(hostname, texts, policy) ?? httpProblem(url, hostname, texts, policy);
  return refused ? { problem: 'refused', message: refused } : { hostname, addresses };
}

/** The host as a resolver or a socket takes it: no IPv6 brackets, no trailing dot of a fully qualified name. */
export function hostnameOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

/** Never names the resolved address itself, so a refusal does not map internal names. */
function addressProblem(hostname: string, addresses: readonly string[], policy: WebhookTargetPolicy): string | undefined {
  const own = ownAddressList(policy.ownAddresses ?? []);
  for (const address of addresses) {
    const subject = address === hostname ? `${address} is` : `${hostname} resolves to`;
    if (own.has(address)) return `${subject} an address of this machine: only public addresses of other machines are allowed`;
    const special = specialAddressOf(address);
    if (!special || (special.kind === 'loopback' && policy.allowLoopback)) continue;
    const where = special.kind === 'not-an-address' ? '' : ` (${special.block})`;
    const rule = special.kind === 'loopback' ? 'loopback only while WEBHOOK_ALLOW_LOOPBACK=true' : 'only public addresses are allowed';
    return `${subject} ${ADDRESS_KIND_TEXT[special.kind]}${where}: ${rule}`;
  }
  return undefined;
}

/** Compared as addresses, not as text: ::FFFF:1.2.3.4 and 1.2.3.4 are one. */
function ownAddressList(addresses: readonly string[]): { has(address: string): boolean } {
  const list = new BlockList();
  for (const address of addresses) {
    const family = isIP(address);
    if (family !== 0) list.addAddress(address, family === 6 ? 'ipv6' : 'ipv4');
  }
  return {
    has: (address) => {
      const family = isIP(address);
      return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
    },
  };
}

/** Plain http:// only when every address is loopback (and loopback is allowed). */
function httpProblem(url: URL, hostname: string, addresses: readonly string[], policy: WebhookTargetPolicy): string | undefined {
  if (url.protocol !== 'http:') return undefined;
  if (policy.allowLoopback && addresses.every((address) => specialAddressOf(address)?.kind === 'loopback')) return undefined;
  return `${hostname}: plain http:// is refused (${httpRule(policy)})`;
}

/** localhost and *.localhost are loopback by name (RFC 6761), whatever a resolver says of them. */
function localhostProblem(hostname: string, policy: WebhookTargetPolicy): string | undefined {
  if (!isLocalhostName(hostname) || policy.allowLoopback) return undefined;
  return `${hostname} is a loopback name: loopback only while WEBHOOK_ALLOW_LOOPBACK=true`;
}

function isLocalhostName(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost');
}

function httpRule(policy: WebhookTargetPolicy): string {
  return policy.allowLoopback
    ? 'plain http:// only to a loopback host: 127.0.0.0/8, ::1 or localhost'
    : 'plain http:// only to a loopback host, and only while WEBHOOK_ALLOW_LOOPBACK=true';
}

function invalid(rule: string): DomainError {
  return new DomainError('invalid-request', `the webhook URL ${rule}`);
}

/** A lookup cannot be cancelled, but nobody need wait for it past the signal. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** ENOTFOUND, EAI_AGAIN, …: the code only, never a message a resolver may fill with anything. */
function lookupErrorCode(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'no answer in time';
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code) ? code : 'lookup failed';
}
