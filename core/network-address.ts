import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * Only public unicast addresses are connected to on a partner's behalf (webhooks): anything else would
 * reach what only the service can (loopback, the private network, cloud metadata at 169.254.169.254).
 */
export type AddressKind =
  | 'unspecified'
  | 'this-network'
  | 'loopback'
  | 'private'
  | 'shared'
  | 'link-local'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'not-an-address';

/** Where a refused address belongs: its kind and the block that holds it. */
export interface SpecialAddress {
  kind: AddressKind;
  /** The block, e.g. 10.0.0.0/8; for IPv6 outside global unicast, "outside 2000::/3". */
  block: string;
}

/** How each kind reads in a message: "10.0.0.1 is a private address (10.0.0.0/8)". */
export const ADDRESS_KIND_TEXT: Readonly<Record<AddressKind, string>> = {
  unspecified: 'an unspecified address',
  'this-network': 'a "this network" address',
  loopback: 'a loopback address',
  private: 'a private address',
  shared: 'a carrier-grade NAT (shared) address',
  'link-local': 'a link-local address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address, not public unicast',
  'not-an-address': 'something that is not an IP address',
};

type Block = readonly [kind: AddressKind, network: string, prefix: number];

/** The first block that holds an address decides its kind: the narrow ones come first. */
const IPV4_BLOCKS: readonly Block[] = [
  ['this-network', '0.0.0.0', 8],
  ['private', '10.0.0.0', 8],
  ['shared', '100.64.0.0', 10],
  ['loopback', '127.0.0.0', 8],
  ['link-local', '169.254.0.0', 16],
  ['private', '172.16.0.0', 12],
  // IETF protocol assignments (192.0.0.170 is NAT64 discovery), documentation, the 6to4 relay,
  // benchmarking: none is an endpoint on the internet.
  ['reserved', '192.0.0.0', 24],
  ['reserved', '192.0.2.0', 24],
  ['reserved', '192.88.99.0', 24],
  ['private', '192.168.0.0', 16],
  ['reserved', '198.18.0.0', 15],
  ['reserved', '198.51.100.0', 24],
  ['reserved', '203.0.113.0', 24],
  ['multicast', '224.0.0.0', 4],
  ['broadcast', '255.255.255.255', 32],
  ['reserved', '240.0.0.0', 4],
];

/** IPv4-mapped and NAT64 addresses are judged by the IPv4 address they carry (unwrapped first). */
const IPV6_BLOCKS: readonly Block[] = [
  ['unspecified', '::', 128],
  ['loopback', '::1', 128],
  // Local-use NAT64 translates to whatever the operator's network routes: private by definition.
  ['private', '64:ff9b:1::', 48],
  ['reserved', '100::', 64],
  // Teredo and 6to4 tunnel to an IPv4 address hidden in the IPv6 one; no endpoint needs them.
  ['reserved', '2001::', 32],
  ['reserved', '2001:2::', 48],
  ['reserved', '2001:db8::', 32],
  ['reserved', '2002::', 16],
  ['private', 'fc00::', 7],
  ['link-local', 'fe80::', 10],
  // Site-local: deprecated, but still routed inside some networks.
  ['private', 'fec0::', 10],
  ['multicast', 'ff00::', 8],
];

const blockLists = (blocks: readonly Block[], family: 'ipv4' | 'ipv6') =>
  blocks.map(([kind, network, prefix]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return { kind, block: `${network}/${prefix}`, list };
  });

const IPV4_LISTS = blockLists(IPV4_BLOCKS, 'ipv4');
const IPV6_LISTS = blockLists(IPV6_BLOCKS, 'ipv6');
const GLOBAL_UNICAST_IPV6 = new BlockList();
GLOBAL_UNICAST_IPV6.addSubnet('2000::', 3, 'ipv6');

/** The special block an address (as a resolver or the URL parser writes it) is in, or undefined for public unicast. */
export function specialAddressOf(text: string): SpecialAddress | undefined {
  const address = text.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  if (isIPv4(address)) return firstBlock(IPV4_LISTS, address, 'ipv4');
  if (!isIPv6(address)) return { kind: 'not-an-address', block: 'none' };
  const embedded = embeddedIpv4(address);
  if (embedded !== undefined) return firstBlock(IPV4_LISTS, embedded, 'ipv4');
  const special = firstBlock(IPV6_LISTS, address, 'ipv6');
  if (special) return special;
  return GLOBAL_UNICAST_IPV6.check(address, 'ipv6') ? undefined : { kind: 'reserved', block: 'outside 2000::/3' };
}

export function isLoopbackAddress(text: string): boolean {
  return specialAddressOf(text)?.kind === 'loopback';
}

/** One of the nested groups an address is counted in, and how many narrowest groups' worth it is allowed. */
export interface AddressGroup {
  group: string;
  /** 0 for the narrowest (one client), then 1, 2: each level is allowed 4 times the level below. */
  level: number;
}

/**
 * The nested groups a per-address limit counts a client in, narrowest first: an IPv6 address by its /64 (one subscriber
 * usually holds a whole /64), /56 and /48 (what one customer is usually given, so one /48 cannot pass for 65,536 clients);
 * an IPv4 address by itself and its /24.
 */
export function clientAddressGroups(text: string): AddressGroup[] {
  const address = text.replace(/%.*$/, '');
  const ipv4 = isIPv4(address) ? address : isIPv6(address) ? embeddedIpv4(address) : undefined;
  if (ipv4 !== undefined) {
    return [
      { group: ipv4, level: 0 },
      { group: `${ipv4.split('.').slice(0, 3).join('.')}.0/24`, level: 1 },
    ];
  }
  // Not an address (a proxy sent junk): its own group, never an error.
  if (!isIPv6(address)) return [{ group: address, level: 0 }];
  const hextets = hextetsOf(address);
  return [64, 56, 48].map((prefix, level) => ({ group: `${prefixText(hextets, prefix)}::/${prefix}`, level }));
}

/** The first `bits` of an address, as hextets (the last one masked when `bits` cuts it). */
function prefixText(hextets: readonly number[], bits: number): string {
  const whole = Math.floor(bits / 16);
  const kept = hextets.slice(0, whole);
  if (bits % 16 !== 0) kept.push((hextets[whole] ?? 0) & (0xffff << (16 - (bits % 16))) & 0xffff);
  return kept.map((hextet) => hextet.toString(16)).join(':');
}

function firstBlock(lists: ReturnType<typeof blockLists>, address: string, family: 'ipv4' | 'ipv6'): SpecialAddress | undefined {
  const found = lists.find(({ list }) => list.check(address, family));
  return found && { kind: found.kind, block: found.block };
}

/** The IPv4 address a socket to an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::a.b.c.d) address reaches. */
function embeddedIpv4(address: string): string | undefined {
  const hextets = hextetsOf(address);
  const prefix = hextets.slice(0, 6).join(':');
  if (prefix !== '0:0:0:0:0:65535' && prefix !== '100:65435:0:0:0:0') return undefined;
  const [high = 0, low = 0] = hextets.slice(6);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** The eight 16-bit groups of a valid IPv6 address (:: expanded, a dotted IPv4 tail converted). */
function hextetsOf(address: string): number[] {
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  let text = address;
  if (dotted) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[2]!.split('.').map(Number);
    text = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  if (tail === undefined) return parse(head);
  const [left, right] = [parse(head), parse(tail)];
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}
