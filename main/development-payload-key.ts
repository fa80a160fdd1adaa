import fs from 'node:fs';
import path from 'node:path';
import { newPayloadKeyEntry, parsePayloadKeys } from '../core/payload-codec';
import type { Settings } from '../core/settings';

/**
 * Development encrypts payloads too, with a key kept in the data folder (histories stay readable across restarts),
 * unless PAYLOAD_ENCRYPTION_KEYS is set. Production entry points require the variable.
 */
export function withDevelopmentPayloadKey(settings: Settings, { create }: { create: boolean }): Settings {
  if (settings.temporal.payloadKeys) return settings;
  const file = path.join(settings.development.dataDir, 'payload-encryption-keys');
  if (!fs.existsSync(file)) {
    if (!create) return settings;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${newPayloadKeyEntry('dev-1')}\n`, { mode: 0o600 });
  }
  return { ...settings, temporal: { ...settings.temporal, payloadKeys: parsePayloadKeys(fs.readFileSync(file, 'utf8').trim()) } };
}
