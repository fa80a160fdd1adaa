import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { METADATA_ENCODING_KEY } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { unreadablePayload } from './unreadable-payload';

/**
 * Encrypts every Temporal payload, so partners' data never sits in clear in the history or the Web UI:
 * AES-256-GCM, a fresh 96-bit IV each, the key id in the metadata and bound as associated data.
 * Plaintext is accepted nowhere: encryption also tells our payloads from anyone else's (the bare CLI).
 * Clients throw on an unreadable payload; a worker (`refused: 'mark'`) hands on a marker
 * (core/unreadable-payload.ts), so a plaintext signal cannot jam a running workflow's tasks.
 */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface PayloadKey {
  id: string;
  /** 32 bytes. */
  key: Buffer;
}

export interface RefusalHandling {
  /** throw (clients, the default), or hand on a marker (workers, the codec endpoint for the UI). */
  refused: 'throw' | 'mark';
  /** Told of every unreadable payload, for logs and metrics; the reason never carries content. */
  onRefused?: (reason: string) => void;
}

export class AesGcmPayloadCodec implements PayloadCodec {
  private readonly keysById: ReadonlyMap<string, Buffer>;

  /** keys[0] encrypts; every key decrypts. */
  constructor(
    private readonly keys: readonly PayloadKey[],
    private readonly handling: RefusalHandling = { refused: 'throw' },
  ) {
    if (keys.length === 0) throw new Error('payload encryption needs at least one key');
    for (const each of keys) if (each.key.length !== 32) throw new Error(`payload key ${each.id} must be 32 bytes`);
    this.keysById = new Map(keys.map((each) => [each.id, each.key]));
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const { id, key } = this.keys[0]!;
    return payloads.map((payload) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(CIPHER, key, iv);
      cipher.setAAD(Buffer.from(id, 'utf8'));
      const plain = temporal.api.common.v1.Payload.encode(payload).finish();
      const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: { [METADATA_ENCODING_KEY]: Buffer.from(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: Buffer.from(id) },
        data: sealed,
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const decrypted = this.decrypt(payload);
      if (!('refused' in decrypted)) return decrypted;
      this.handling.onRefused?.(decrypted.refused);
      if (this.handling.refused === 'throw') throw new Error(`refused a Temporal payload: ${decrypted.refused}`);
      return {
        metadata: { [METADATA_ENCODING_KEY]: Buffer.from('json/plain') },
        data: Buffer.from(JSON.stringify(unreadablePayload(decrypted.refused))),
      };
    });
  }

  /** The payload inside, or why it is refused (which key is missing, never anything about the content). */
  private decrypt(payload: Payload): Payload | { refused: string } {
    const encoding = payload.metadata?.[METADATA_ENCODING_KEY];
    if (!encoding || Buffer.from(encoding).toString('utf8') !== ENCRYPTED_ENCODING) {
      return { refused: 'not encrypted with a configured payload key' };
    }
    const idBytes = payload.metadata?.[KEY_ID_METADATA];
    const id = idBytes ? Buffer.from(idBytes).toString('utf8').slice(0, 64) : '';
    const key = this.keysById.get(id);
    if (!key) return { refused: `encrypted with key "${id}", which this process does not have` };
    const sealed = Buffer.from(payload.data ?? new Uint8Array());
    if (sealed.length < IV_BYTES + TAG_BYTES) return { refused: 'encrypted payload too short' };
    try {
      const decipher = createDecipheriv(CIPHER, key, sealed.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(id, 'utf8'));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]);
      return temporal.api.common.v1.Payload.decode(plain);
    } catch {
      return { refused: `does not decrypt with key "${id}" (altered, or not ours)` };
    }
  }
}

const KEY_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** PAYLOAD_ENCRYPTION_KEYS (`id:base64key,…`, the first encrypting); the errors never repeat key material. */
export function parsePayloadKeys(text: string): PayloadKey[] {
  const keys = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
    .map((entry, index) => {
      const colon = entry.indexOf(':');
      const id = colon > 0 ? entry.slice(0, colon) : '';
      if (!KEY_ID_PATTERN.test(id))
        throw new Error(`PAYLOAD_ENCRYPTION_KEYS entry ${index + 1}: expected id:base64key with an id of [A-Za-z0-9._-]`);
      const key = Buffer.from(entry.slice(colon + 1), 'base64');
      if (key.length !== 32) throw new Error(`PAYLOAD_ENCRYPTION_KEYS key "${id}": expected 32 bytes in base64, got ${key.length}`);
      return { id, key };
    });
  if (keys.length === 0) throw new Error('PAYLOAD_ENCRYPTION_KEYS is empty');
  if (new Set(keys.map((each) => each.id)).size !== keys.length) throw new Error('PAYLOAD_ENCRYPTION_KEYS has a key id twice');
  return keys;
}

/** The PAYLOAD_ENCRYPTION_KEYS text of these keys (parsePayloadKeys's inverse): what a child process is handed. */
export function formatPayloadKeys(keys: readonly PayloadKey[]): string {
  return keys.map(({ id, key }) => `${id}:${key.toString('base64')}`).join(',');
}

/** A new key entry for PAYLOAD_ENCRYPTION_KEYS (the development key, the tests' and the bench's). */
export function newPayloadKeyEntry(id: string): string {
  if (!KEY_ID_PATTERN.test(id)) throw new Error('a key id is 1–64 characters of [A-Za-z0-9._-]');
  return `${id}:${randomBytes(32).toString('base64')}`;
}
