import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import {
  AesGcmPayloadCodec,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA,
  formatPayloadKeys,
  newPayloadKeyEntry,
  parsePayloadKeys,
} from '../../core/payload-codec';
import { UNREADABLE_PAYLOAD_KEY, isUnreadablePayload } from '../../core/unreadable-payload';

const secretInput = { beneficiary: { firstName: 'Grażyna', lastName: 'Kowalska' }, iban: 'DE89370400440532013000' };

function text(bytes: Uint8Array | null | undefined): string {
  return Buffer.from(bytes ?? new Uint8Array()).toString('utf8');
}

describe('AesGcmPayloadCodec', () => {
  const current = { id: 'k2', key: randomBytes(32) };
  const previous = { id: 'k1', key: randomBytes(32) };

  it('encrypts with the first key, names it in the metadata, and keeps nothing readable', async () => {
    const codec = new AesGcmPayloadCodec([current, previous]);
    const [sealed] = await codec.encode([defaultPayloadConverter.toPayload(secretInput)]);
    expect(text(sealed!.metadata!.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(text(sealed!.metadata![KEY_ID_METADATA])).toBe('k2');
    const raw = Buffer.from(sealed!.data!).toString('latin1');
    for (const clear of ['Kowalska', 'DE89370400440532013000', 'json/plain']) expect(raw).not.toContain(clear);
    const [opened] = await codec.decode([sealed!]);
    expect(defaultPayloadConverter.fromPayload(opened!)).toEqual(secretInput);
  });

  it('decrypts what an older key wrote (rotation)', async () => {
    const [old] = await new AesGcmPayloadCodec([previous]).encode([defaultPayloadConverter.toPayload(secretInput)]);
    const rotated = new AesGcmPayloadCodec([current, previous]);
    const [fromOld] = await rotated.decode([old!]);
    expect(defaultPayloadConverter.fromPayload(fromOld!)).toEqual(secretInput);
  });

  it('refuses plain payloads: a client throws, a worker hands on a marker and is told why', async () => {
    const plain = defaultPayloadConverter.toPayload({ forged: 'by the bare CLI' });
    await expect(new AesGcmPayloadCodec([current]).decode([plain])).rejects.toThrow('not encrypted with a configured payload key');
    const reasons: string[] = [];
    const worker = new AesGcmPayloadCodec([current], { refused: 'mark', onRefused: (reason) => reasons.push(reason) });
    const [sealed] = await worker.encode([defaultPayloadConverter.toPayload(secretInput)]);
    const [opened, marked] = await worker.decode([sealed!, plain]);
    expect(defaultPayloadConverter.fromPayload(opened!)).toEqual(secretInput);
    const marker = defaultPayloadConverter.fromPayload(marked!);
    expect(isUnreadablePayload(marker)).toBe(true);
    expect(marker).toEqual({ [UNREADABLE_PAYLOAD_KEY]: 'not encrypted with a configured payload key' });
    // Nothing of what was sent comes through.
    expect(JSON.stringify(marker)).not.toContain('forged');
    expect(reasons).toEqual(['not encrypted with a configured payload key']);
  });

  it('marks a payload under another key or with altered bytes as refused, without throwing, in a worker', async () => {
    const worker = new AesGcmPayloadCodec([current], { refused: 'mark' });
    const [foreign] = await new AesGcmPayloadCodec([previous]).encode([defaultPayloadConverter.toPayload(secretInput)]);
    const [mine] = await worker.encode([defaultPayloadConverter.toPayload(secretInput)]);
    const flipped = Buffer.from(mine!.data!);
    flipped[20] = flipped[20]! ^ 1;
    const decoded = await worker.decode([foreign!, { ...mine!, data: flipped }]);
    expect(decoded.map((payload) => defaultPayloadConverter.fromPayload(payload))).toEqual([
      { [UNREADABLE_PAYLOAD_KEY]: 'encrypted with key "k1", which this process does not have' },
      { [UNREADABLE_PAYLOAD_KEY]: 'does not decrypt with key "k2" (altered, or not ours)' },
    ]);
  });

  it('refuses a payload whose key it lacks, or whose bytes or key id were altered', async () => {
    const codec = new AesGcmPayloadCodec([current]);
    const [sealed] = await new AesGcmPayloadCodec([previous]).encode([defaultPayloadConverter.toPayload(secretInput)]);
    await expect(codec.decode([sealed!])).rejects.toThrow('key "k1"');

    const [mine] = await codec.encode([defaultPayloadConverter.toPayload(secretInput)]);
    const flipped = Buffer.from(mine!.data!);
    flipped[20] = flipped[20]! ^ 1;
    await expect(codec.decode([{ ...mine!, data: flipped }])).rejects.toThrow();

    // The key id is authenticated: the same bytes under another id (with that id's key) fail.
    const other = new AesGcmPayloadCodec([current, { id: 'k3', key: current.key }]);
    await expect(other.decode([{ ...mine!, metadata: { ...mine!.metadata, [KEY_ID_METADATA]: Buffer.from('k3') } }])).rejects.toThrow();
  });

  it('uses a fresh IV per payload', async () => {
    const codec = new AesGcmPayloadCodec([current]);
    const payload = defaultPayloadConverter.toPayload(secretInput);
    const [a, b] = await codec.encode([payload, payload]);
    expect(Buffer.from(a!.data!).equals(Buffer.from(b!.data!))).toBe(false);
  });
});

describe('parsePayloadKeys', () => {
  it('reads id:base64 entries, the first encrypting', () => {
    const keys = parsePayloadKeys(`${newPayloadKeyEntry('2026-11')}, ${newPayloadKeyEntry('2026-10')}`);
    expect(keys.map((each) => each.id)).toEqual(['2026-11', '2026-10']);
    expect(keys.every((each) => each.key.length === 32)).toBe(true);
  });

  it('refuses short keys, bad ids, duplicates and nothing, without echoing key material', () => {
    const short = `k:${randomBytes(16).toString('base64')}`;
    expect(() => parsePayloadKeys(short)).toThrow('expected 32 bytes');
    try {
      parsePayloadKeys(short);
    } catch (error) {
      expect(String(error)).not.toContain(short.slice(2));
    }
    expect(() => parsePayloadKeys(`bad id:${randomBytes(32).toString('base64')}`)).toThrow('entry 1');
    const entry = newPayloadKeyEntry('same');
    expect(() => parsePayloadKeys(`${entry},${entry}`)).toThrow('twice');
    expect(() => parsePayloadKeys(' , ')).toThrow('empty');
  });

  it('writes keys back as the text it reads (what start:cluster hands its worker and API)', () => {
    const text = `${newPayloadKeyEntry('dev-1')},${newPayloadKeyEntry('old')}`;
    expect(formatPayloadKeys(parsePayloadKeys(text))).toBe(text);
  });
});
