import { clientAddressGroups, isLoopbackAddress, specialAddressOf } from '../../core/network-address';

describe('the address classifier', () => {
  it.each([
    ['0.0.0.0', 'this-network', '0.0.0.0/8'],
    ['0.255.255.255', 'this-network', '0.0.0.0/8'],
    ['10.0.0.1', 'private', '10.0.0.0/8'],
    ['10.255.255.255', 'private', '10.0.0.0/8'],
    ['100.64.0.1', 'shared', '100.64.0.0/10'],
    ['100.127.255.254', 'shared', '100.64.0.0/10'],
    ['127.0.0.1', 'loopback', '127.0.0.0/8'],
    ['127.255.255.254', 'loopback', '127.0.0.0/8'],
    ['169.254.169.254', 'link-local', '169.254.0.0/16'],
    ['172.16.0.1', 'private', '172.16.0.0/12'],
    ['172.31.255.255', 'private', '172.16.0.0/12'],
    ['192.168.1.1', 'private', '192.168.0.0/16'],
    ['192.0.0.170', 'reserved', '192.0.0.0/24'],
    ['192.0.2.10', 'reserved', '192.0.2.0/24'],
    ['198.18.0.1', 'reserved', '198.18.0.0/15'],
    ['203.0.113.7', 'reserved', '203.0.113.0/24'],
    ['224.0.0.1', 'multicast', '224.0.0.0/4'],
    ['239.255.255.250', 'multicast', '224.0.0.0/4'],
    ['240.0.0.1', 'reserved', '240.0.0.0/4'],
    ['255.255.255.255', 'broadcast', '255.255.255.255/32'],
  ])('IPv4 %s is %s (%s)', (address, kind, block) => {
    expect(specialAddressOf(address)).toEqual({ kind, block });
  });

  it.each([
    ['::', 'unspecified', '::/128'],
    ['::1', 'loopback', '::1/128'],
    ['0:0:0:0:0:0:0:1', 'loopback', '::1/128'],
    ['[::1]', 'loopback', '::1/128'],
    ['fc00::1', 'private', 'fc00::/7'],
    ['fd00::1', 'private', 'fc00::/7'],
    ['FD12:3456::1', 'private', 'fc00::/7'],
    ['fe80::1', 'link-local', 'fe80::/10'],
    ['fe80::1%eth0', 'link-local', 'fe80::/10'],
    ['febf::1', 'link-local', 'fe80::/10'],
    ['fec0::1', 'private', 'fec0::/10'],
    ['ff02::1', 'multicast', 'ff00::/8'],
    ['64:ff9b:1::a00:1', 'private', '64:ff9b:1::/48'],
    ['2001:db8::1', 'reserved', '2001:db8::/32'],
    ['2001:0:4136:e378::1', 'reserved', '2001::/32'],
    ['2002:7f00:1::1', 'reserved', '2002::/16'],
    ['100::1', 'reserved', '100::/64'],
    // IPv4-compatible (deprecated) and other addresses outside global unicast.
    ['::7f00:1', 'reserved', 'outside 2000::/3'],
    ['::2', 'reserved', 'outside 2000::/3'],
    ['4000::1', 'reserved', 'outside 2000::/3'],
  ])('IPv6 %s is %s (%s)', (address, kind, block) => {
    expect(specialAddressOf(address)).toEqual({ kind, block });
  });

  it.each([
    // IPv4-mapped: a socket to these reaches the IPv4 address, so it is judged as one.
    ['::ffff:127.0.0.1', 'loopback', '127.0.0.0/8'],
    ['::ffff:7f00:1', 'loopback', '127.0.0.0/8'],
    ['[::ffff:7f00:1]', 'loopback', '127.0.0.0/8'],
    ['0:0:0:0:0:ffff:a00:1', 'private', '10.0.0.0/8'],
    ['::FFFF:169.254.169.254', 'link-local', '169.254.0.0/16'],
    ['::ffff:0.0.0.0', 'this-network', '0.0.0.0/8'],
    ['::ffff:ffff:ffff', 'broadcast', '255.255.255.255/32'],
    // NAT64 (64:ff9b::/96) wrapping a private address.
    ['64:ff9b::10.0.0.1', 'private', '10.0.0.0/8'],
    ['64:ff9b::a00:1', 'private', '10.0.0.0/8'],
    ['64:ff9b::7f00:1', 'loopback', '127.0.0.0/8'],
    ['64:ff9b::1', 'this-network', '0.0.0.0/8'],
    ['64:ff9b::c0a8:101', 'private', '192.168.0.0/16'],
  ])('the wrapped IPv4 form %s is %s (%s)', (address, kind, block) => {
    expect(specialAddressOf(address)).toEqual({ kind, block });
  });

  it.each([
    '93.184.216.34',
    '1.1.1.1',
    '8.8.8.8',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '169.253.255.255',
    '192.167.255.255',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2a00:1450:4001:82a::200e',
    '::ffff:93.184.216.34',
    '64:ff9b::5db8:d822',
  ])('%s is public', (address) => {
    expect(specialAddressOf(address)).toBeUndefined();
  });

  it.each(['localhost', 'example.com', '', '127.1', '0x7f000001', '2130706433', '1.2.3.4.5', '::ffff:1.2.3', 'fe80::1::2'])(
    'refuses %j as not an IP address: a resolver answer is an address or nothing',
    (text) => {
      expect(specialAddressOf(text)).toEqual({ kind: 'not-an-address', block: 'none' });
    },
  );

  it('knows a loopback address in every form', () => {
    expect(['127.0.0.1', '127.9.9.9', '::1', '[::1]', '::ffff:127.0.0.1', '64:ff9b::7f00:1'].every(isLoopbackAddress)).toBe(true);
    expect(['10.0.0.1', '::', '0.0.0.0', '93.184.216.34', 'localhost'].some(isLoopbackAddress)).toBe(false);
  });
});

describe('the nested client address groups a per-address limit counts', () => {
  it.each([
    ['203.0.113.7', ['203.0.113.7', '203.0.113.0/24']],
    ['::ffff:203.0.113.7', ['203.0.113.7', '203.0.113.0/24']],
    ['::ffff:cb00:7107', ['203.0.113.7', '203.0.113.0/24']],
    // One subscriber holds a whole /64: every address in it is one client; one customer a /56 or a /48.
    ['2a00:1450:4001:82a::200e', ['2a00:1450:4001:82a::/64', '2a00:1450:4001:800::/56', '2a00:1450:4001::/48']],
    ['2a00:1450:4001:82a:ffff:ffff:ffff:ffff', ['2a00:1450:4001:82a::/64', '2a00:1450:4001:800::/56', '2a00:1450:4001::/48']],
    ['2A00:1450:4001:08FF::1', ['2a00:1450:4001:8ff::/64', '2a00:1450:4001:800::/56', '2a00:1450:4001::/48']],
    ['2a00::1', ['2a00:0:0:0::/64', '2a00:0:0:0::/56', '2a00:0:0::/48']],
    ['fe80::1%eth0', ['fe80:0:0:0::/64', 'fe80:0:0:0::/56', 'fe80:0:0::/48']],
    // Not an address (a proxy sent junk): its own group, never an error.
    ['not-an-address', ['not-an-address']],
    ['', ['']],
  ])('%j counts in %j', (address, groups) => {
    const found = clientAddressGroups(address);
    expect(found.map(({ group }) => group)).toEqual(groups);
    expect(found.map(({ level }) => level)).toEqual(groups.map((_, index) => index));
  });
});
