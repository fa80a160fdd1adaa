import { checkWebhookTarget, webhookUrlOf } from '../../core/webhook-target';
import type { HostResolver, ResolvedAddress } from '../../core/webhook-target';

const PRODUCTION = { allowLoopback: false };
const LOCAL = { allowLoopback: true };

const accepted = (url: string, policy = PRODUCTION) => webhookUrlOf(url, policy).href;

/** A resolver that answers from a table, and refuses to be asked about anything else. */
function resolverOf(table: Record<string, readonly string[]>): HostResolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string): Promise<readonly ResolvedAddress[]> => {
    asked.push(hostname);
    const answers = table[hostname];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { asked });
}

const check = (url: string, resolve: HostResolver, policy = PRODUCTION) =>
  checkWebhookTarget(new URL(url), policy, resolve, AbortSignal.timeout(5_000));

describe('webhook URLs at registration', () => {
  it.each([
    ['http://example.com/hooks', 'must use https://'],
    ['ftp://example.com/hooks', 'must use https://'],
    ['http://localhost.example.com/hooks', 'must use https://'],
    ['https://user:secret@example.com/hooks', 'must not carry credentials'],
    ['https://example.com/hooks#part', 'must not have a fragment'],
    ['https://example.com/ho\noks', 'must not contain spaces or control characters'],
    [' https://example.com/hooks', 'must not contain spaces or control characters'],
    ['/hooks', 'must be an absolute URL'],
    ['', 'must be 1 to 2048 characters'],
  ])('refuses %j: it %s', (url, rule) => {
    expect(() => webhookUrlOf(url, LOCAL)).toThrow(rule);
  });

  it.each([
    // The literal forms the URL parser turns into an address, each of a refused block.
    ['https://10.1.2.3/hooks', '10.1.2.3 is a private address (10.0.0.0/8): only public addresses are allowed'],
    ['https://169.254.169.254/latest/meta-data', '169.254.169.254 is a link-local address (169.254.0.0/16)'],
    ['https://[fd00::1]/hooks', 'fd00::1 is a private address (fc00::/7)'],
    ['https://[fe80::1]/hooks', 'fe80::1 is a link-local address (fe80::/10)'],
    ['https://100.64.1.1/hooks', '100.64.1.1 is a carrier-grade NAT (shared) address (100.64.0.0/10)'],
    ['https://0.0.0.0/hooks', '0.0.0.0 is a "this network" address (0.0.0.0/8)'],
    ['https://0/hooks', '0.0.0.0 is a "this network" address'],
    ['https://224.0.0.251/hooks', '224.0.0.251 is a multicast address (224.0.0.0/4)'],
    ['https://[ff02::1]/hooks', 'ff02::1 is a multicast address (ff00::/8)'],
    ['https://255.255.255.255/hooks', '255.255.255.255 is the broadcast address'],
    ['https://[::]/hooks', ':: is an unspecified address (::/128)'],
    ['https://[::ffff:10.0.0.1]/hooks', '::ffff:a00:1 is a private address (10.0.0.0/8)'],
    ['https://[64:ff9b::192.168.0.1]/hooks', '64:ff9b::c0a8:1 is a private address (192.168.0.0/16)'],
    ['https://172.20.0.1./hooks', '172.20.0.1 is a private address (172.16.0.0/12)'],
    ['https://0xa.1/hooks', '10.0.0.1 is a private address'],
    ['https://012.0.0.1/hooks', '10.0.0.1 is a private address'],
    ['https://167772161/hooks', '10.0.0.1 is a private address'],
    ['https://%31%30.0.0.1/hooks', '10.0.0.1 is a private address'],
    // Loopback, in every spelling, while it is not allowed.
    ['http://2130706433/hooks', '127.0.0.1 is a loopback address (127.0.0.0/8): loopback only while WEBHOOK_ALLOW_LOOPBACK=true'],
    ['https://0x7f.1/hooks', '127.0.0.1 is a loopback address'],
    ['https://0177.0.0.1/hooks', '127.0.0.1 is a loopback address'],
    ['https://127.0.0.1./hooks', '127.0.0.1 is a loopback address'],
    ['https://[::1]/hooks', '::1 is a loopback address (::1/128)'],
    ['https://[::ffff:127.0.0.1]/hooks', '::ffff:7f00:1 is a loopback address (127.0.0.0/8)'],
    ['http://LOCALHOST/hooks', 'localhost is a loopback name: loopback only while WEBHOOK_ALLOW_LOOPBACK=true'],
    ['https://localhost./hooks', 'localhost is a loopback name'],
    ['https://api.LocalHost/hooks', 'api.localhost is a loopback name'],
  ])('refuses %j in production: its host %s', (url, reason) => {
    expect(() => webhookUrlOf(url, PRODUCTION)).toThrow(`the webhook URL's host ${reason}`);
  });

  it('refuses credentials before it looks at a host: https://good.com@10.0.0.1/ goes to 10.0.0.1', () => {
    expect(() => webhookUrlOf('https://good.com@10.0.0.1/', PRODUCTION)).toThrow('must not carry credentials');
    expect(() => webhookUrlOf('https://good.com:443@127.0.0.1/', LOCAL)).toThrow('must not carry credentials');
  });

  it('refuses private addresses even where loopback is allowed', () => {
    expect(() => webhookUrlOf('https://10.0.0.1/hooks', LOCAL)).toThrow("the webhook URL's host 10.0.0.1 is a private address");
    expect(() => webhookUrlOf('http://[::2]/hooks', LOCAL)).toThrow('::2 is a reserved address, not public unicast (outside 2000::/3)');
  });

  it.each([
    ['https://example.com/hooks', 'https://example.com/hooks'],
    ['https://Example.com:8443/hooks?partner=1', 'https://example.com:8443/hooks?partner=1'],
    ['https://93.184.216.34/hooks', 'https://93.184.216.34/hooks'],
    ['https://[2606:4700:4700::1111]/hooks', 'https://[2606:4700:4700::1111]/hooks'],
  ])('accepts %j as %j in production', (url, stored) => {
    expect(accepted(url)).toBe(stored);
  });

  it.each([
    ['http://127.0.0.1:8080/hooks', 'http://127.0.0.1:8080/hooks'],
    ['http://127.1.2.3/hooks', 'http://127.1.2.3/hooks'],
    ['http://[::1]:9/hooks', 'http://[::1]:9/hooks'],
    ['http://LOCALHOST/hooks', 'http://localhost/hooks'],
    ['https://127.0.0.1/hooks', 'https://127.0.0.1/hooks'],
  ])('accepts %j as %j while loopback is allowed', (url, stored) => {
    expect(accepted(url, LOCAL)).toBe(stored);
  });

  it('says where plain http:// is allowed, and that only with WEBHOOK_ALLOW_LOOPBACK', () => {
    expect(() => webhookUrlOf('http://example.com/hooks', LOCAL)).toThrow(
      'the webhook URL must use https:// (plain http:// only to a loopback host: 127.0.0.0/8, ::1 or localhost)',
    );
    expect(() => webhookUrlOf('http://example.com/hooks', PRODUCTION)).toThrow(
      'the webhook URL must use https:// (plain http:// only to a loopback host, and only while WEBHOOK_ALLOW_LOOPBACK=true)',
    );
  });

  it('bounds the URL to 2048 characters', () => {
    const path = (length: number) => `https://example.com/${'a'.repeat(length - 'https://example.com/'.length)}`;
    expect(accepted(path(2048))).toBe(path(2048));
    expect(() => webhookUrlOf(path(2049), PRODUCTION)).toThrow('must be 1 to 2048 characters');
    // Measured again once normalised: a space-free text can grow when percent-encoded.
    expect(() => webhookUrlOf(`https://example.com/${'é'.repeat(1000)}`, PRODUCTION)).toThrow('at most 2048 characters once normalised');
  });
});

describe('checking where a webhook URL leads', () => {
  it('accepts a name whose every address is public, and gives those addresses to connect to', async () => {
    const resolve = resolverOf({ 'hooks.partner.example': ['93.184.216.34', '2606:4700:4700::1111'] });
    await expect(check('https://hooks.partner.example/in', resolve)).resolves.toEqual({
      hostname: 'hooks.partner.example',
      addresses: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:4700:4700::1111', family: 6 },
      ],
    });
  });

  it.each([
    [['10.1.2.3'], 'a private address (10.0.0.0/8)'],
    [['169.254.169.254'], 'a link-local address (169.254.0.0/16)'],
    [['100.64.0.1'], 'a carrier-grade NAT (shared) address (100.64.0.0/10)'],
    [['fd00::1'], 'a private address (fc00::/7)'],
    [['::ffff:192.168.1.1'], 'a private address (192.168.0.0/16)'],
    [['127.0.0.1'], 'a loopback address (127.0.0.0/8): loopback only while WEBHOOK_ALLOW_LOOPBACK=true'],
    // One bad answer among good ones refuses the name: a connection may use any of them.
    [['93.184.216.34', '10.0.0.7'], 'a private address (10.0.0.0/8)'],
    [['not-an-ip'], 'something that is not an IP address'],
  ])('refuses a name that resolves to %j: %s, without naming the address', async (answers, reason) => {
    const result = await check('https://hooks.partner.example/in', resolverOf({ 'hooks.partner.example': answers }));
    expect(result).toEqual({ problem: 'refused', message: expect.stringContaining(`hooks.partner.example resolves to ${reason}`) });
    for (const answer of answers.filter((address) => address !== '93.184.216.34')) {
      expect(JSON.stringify(result)).not.toContain(answer);
    }
  });

  it('resolves the name without its trailing dot, lower case as the URL parser gives it', async () => {
    const resolve = resolverOf({ 'hooks.partner.example': ['10.0.0.1'] });
    await expect(check('https://HOOKS.Partner.Example./in', resolve)).resolves.toMatchObject({ problem: 'refused' });
    expect(resolve.asked).toEqual(['hooks.partner.example']);
  });

  it('asks no resolver about a literal address, nor about localhost while loopback is refused', async () => {
    const resolve = resolverOf({});
    await expect(check('https://93.184.216.34/in', resolve)).resolves.toEqual({
      hostname: '93.184.216.34',
      addresses: [{ address: '93.184.216.34', family: 4 }],
    });
    await expect(check('https://[2606:4700:4700::1111]/in', resolve)).resolves.toMatchObject({
      addresses: [{ address: '2606:4700:4700::1111', family: 6 }],
    });
    await expect(check('https://localhost/in', resolve)).resolves.toMatchObject({ problem: 'refused' });
    expect(resolve.asked).toEqual([]);
  });

  it('loopback while allowed: a name resolving only to loopback, plain http:// included; never a name that leaves the machine over http', async () => {
    const resolve = resolverOf({ localhost: ['127.0.0.1', '::1'], mixed: ['127.0.0.1', '93.184.216.34'] });
    await expect(check('http://localhost:8080/in', resolve, LOCAL)).resolves.toMatchObject({ hostname: 'localhost' });
    await expect(check('http://mixed:8080/in', resolve, LOCAL)).resolves.toEqual({
      problem: 'refused',
      message: 'mixed: plain http:// is refused (plain http:// only to a loopback host: 127.0.0.0/8, ::1 or localhost)',
    });
    await expect(check('https://mixed/in', resolve, LOCAL)).resolves.toMatchObject({ hostname: 'mixed' });
  });

  it("refuses the connecting machine's own addresses, public ones included, in any spelling", async () => {
    const policy = { allowLoopback: true, ownAddresses: ['93.184.216.34', 'fe80::1', '2606:4700::6810:84e5'] };
    const resolve = resolverOf({ self: ['::ffff:93.184.216.34'], other: ['93.184.216.35'] });
    await expect(check('https://self/in', resolve, policy)).resolves.toEqual({
      problem: 'refused',
      message: 'self resolves to an address of this machine: only public addresses of other machines are allowed',
    });
    await expect(check('https://[2606:4700:0:0:0:0:6810:84E5]/in', resolve, policy)).resolves.toMatchObject({ problem: 'refused' });
    await expect(check('https://other/in', resolve, policy)).resolves.toMatchObject({ hostname: 'other' });
  });

  it('a name that does not resolve is a problem of its own kind, with the resolver code only', async () => {
    await expect(check('https://nowhere.example/in', resolverOf({}))).resolves.toEqual({
      problem: 'unresolved',
      message: 'nowhere.example does not resolve (ENOTFOUND)',
    });
    await expect(check('https://empty.example/in', resolverOf({ 'empty.example': [] }))).resolves.toEqual({
      problem: 'unresolved',
      message: 'empty.example does not resolve (no addresses)',
    });
  });

  it('does not wait for a resolver past its signal', async () => {
    const hanging: HostResolver = () => new Promise(() => undefined);
    const startedMs = Date.now();
    const result = await checkWebhookTarget(new URL('https://slow.example/in'), PRODUCTION, hanging, AbortSignal.timeout(50));
    expect(result).toEqual({ problem: 'unresolved', message: 'slow.example does not resolve (no answer in time)' });
    // Its 50 ms signal, with room for a loaded machine: a resolver waited for would hold it to jest's timeout.
    expect(Date.now() - startedMs).toBeLessThan(10_000);
  });
});
