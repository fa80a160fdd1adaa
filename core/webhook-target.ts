import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { DomainError } from './errors';
import { ADDRESS_KIND_TEXT, specialAddressOf } from './network-address';

/**
 * Where webhooks may go: a URL anyone who registers an endpoint chooses, so the worker must not
 * become a way into the networks only it can reach. Checked at registration (the URL, its literal
 * host, and what its name resolves to) and again at every delivery, where the connection goes to
 * the very addresses that were checked (activities/webhook-sender.ts): a name whose answer changes
 * after registration (DNS rebinding) is refused then.
 */
export interface WebhookTargetPolicy {
  /** WEBHOOK_ALLOW_LOOPBACK: loopback targets, plain http:// included, for a local receiver. */
  allowLoopback: boolean;
  /**
   * The addresses of the machine that connects (its network interfaces): public or not, they lead
   * to its own services (the worker's health port, anything bound to every interface).
   */
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

/**
 * A target checked for one connection: the name the URL gives (TLS and the Host header use it)
 * and the only addresses a connection to it may use.
 */
export interface CheckedTarget {
  hostname: string;
  addresses: readonly ResolvedAddress[];
}

/** Why a target is not used: refused by the rules, or its name did not resolve (yet). */
export type TargetProblem = { problem: 'refused'; message: string } | { problem: 'unresolved'; message: string };

/**
 * The URL as stored: absolute, HTTPS (plain HTTP only to a loopback host, and only while loopback
 * is allowed), no credentials, no fragment, at most 2048 characters, and a literal host that is a
 * public address. Throws invalid-request saying what is wrong. Names are checked by
 * checkWebhookTarget, which resolves them.
 */
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

/**
 * Resolves the URL's host (a literal is its own answer) and checks every address: one refused
 * address refuses the target, since a connection may use any of them. Never throws: the caller
 * decides what a problem means (registration accepts a name that does not resolve yet; a delivery
 * records a failed attempt). `signal` bounds the lookup.
 */
export async function checkWebhookTarget(
  url: URL,
  policy: WebhookTargetPolicy,
  resolve: HostResolver,
  signal: AbortSignal,
): Promise<CheckedTarget | TargetProblem> {
  const hostname = hostnameOf(url);
  if (isIP(hostname) !== 0) {
    const refused = addressProblem(hostname, [hostname], policy) ?? httpProblem(url, hostname, [hostname], policy);
    return refused
      ? { problem: 'refused', message: refused }
      : { hostname, addresses: [{ address: hostname, family: isIP(hostname) as 4 | 6 }] };
  }
  const byName = localhostProblem(hostname, policy);
  if (byName) return { problem: 'refused', message: byName };
  let addresses: readonly ResolvedAddress[];
  try {
    addresses = await abortable(resolve(hostname), signal);
  } catch (error) {
    return { problem: 'unresolved', message: `${hostname} does not resolve (${lookupErrorCode(error, signal)})` };
  }
  if (addresses.length === 0) return { problem: 'unresolved', message: `${hostname} does not resolve (no addresses)` };
  const texts = addresses.map(({ address }) => address);
  const refused = addressProblem(hostname, texts, policy) ?? httpProblem(url, hostname, texts, policy);
  return refused ? { problem: 'refused', message: refused } : { hostname, addresses };
}

/** The host as a resolver or a socket takes it: no IPv6 brackets, no trailing dot of a fully qualified name. */
export function hostnameOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

/**
 * "10.0.0.1 is a private address (10.0.0.0/8)" or "name resolves to a private address
 * (10.0.0.0/8)": never the resolved address itself, so a refusal does not map internal names.
 */
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
