import { z } from 'zod';
import { API_KEY_SCOPES } from '../core/api-keys';
import { createApiKey, listApiKeys, MAX_LISTED_API_KEYS, revokeApiKey, rotateApiKey } from '../db/services/api-key.service';
import type { Command } from './ops-command';
import { CliFailure, command, uuidFlag } from './ops-command';

/** Partners' API keys in the operator CLI (main/ops.cli.ts); keys are only ever issued here. */
export const KEY_USAGE = `  key create --partner ID [--scope read|payments] [--expires-in-days 1..3650]
                (payments, the default, may do everything; read only GET; no expiry by default)
  key rotate --key API_KEY_ID [--overlap-minutes 0..43200]
                (a new key of the same partner and scope; the old one works for the overlap, default 1440)
  key revoke --key API_KEY_ID
  key list --partner ID   (newest first; never the keys themselves)`;

/** A whole number from `min` to `max` as a flag's text (no sign, no decimals, no exponent). */
const wholeNumber = (min: number, max: number, unit: string) =>
  z
    .string()
    .regex(new RegExp(`^\\d{1,${String(max).length}}$`), `must be a whole number of ${unit}, ${min} to ${max}`)
    .transform(Number)
    .refine((value) => value >= min && value <= max, `must be a whole number of ${unit}, ${min} to ${max}`);

const MS_PER_MINUTE = 60_000;
const MS_PER_DAY = 24 * 60 * MS_PER_MINUTE;
/** Up to ten years: a key that should outlive that should not expire at all. */
const MAX_EXPIRES_IN_DAYS = 3650;
/** Up to 30 days of two keys at once. */
const MAX_OVERLAP_MINUTES = 30 * 24 * 60;
const DEFAULT_OVERLAP_MINUTES = 24 * 60;

const iso = (date: Date | null) => date?.toISOString() ?? null;

export const keyCommands: Record<string, Command> = {
  'key create': command({
    changesState: true,
    flags: {
      partner: uuidFlag,
      scope: z.enum(API_KEY_SCOPES, { error: `must be one of ${API_KEY_SCOPES.join(', ')}` }).optional(),
      'expires-in-days': wholeNumber(1, MAX_EXPIRES_IN_DAYS, 'days').optional(),
    },
    async run({ em, flags, now }) {
      const days = flags['expires-in-days'];
      const expiresAt = days === undefined ? null : new Date(now.getTime() + days * MS_PER_DAY);
      const key = await createApiKey(em, flags.partner, now, { scope: flags.scope ?? 'payments', expiresAt });
      const details = { scope: key.scope, expiresAt: iso(key.expiresAt) };
      return {
        output: { apiKey: key.apiKey, apiKeyId: key.apiKeyId, ...details },
        audit: { action: 'key-create', subject: { type: 'api-key', id: key.apiKeyId, partnerId: flags.partner }, details },
      };
    },
  }),
  'key rotate': command({
    changesState: true,
    flags: { key: uuidFlag, 'overlap-minutes': wholeNumber(0, MAX_OVERLAP_MINUTES, 'minutes').optional() },
    async run({ em, flags, now }) {
      const overlapMinutes = flags['overlap-minutes'] ?? DEFAULT_OVERLAP_MINUTES;
      const rotated = await rotateApiKey(em, flags.key, overlapMinutes * MS_PER_MINUTE, now);
      // Refused: nothing was written, and the transaction rolls back with this throw anyway.
      if ('refused' in rotated) throw new CliFailure({ error: 'refused', reason: rotated.refused, message: rotated.message });
      const details = {
        newApiKeyId: rotated.apiKeyId,
        scope: rotated.scope,
        expiresAt: iso(rotated.expiresAt),
        oldKeyExpiresAt: iso(rotated.oldKeyExpiresAt),
        overlapMinutes,
      };
      return {
        output: {
          apiKey: rotated.apiKey,
          apiKeyId: rotated.apiKeyId,
          scope: rotated.scope,
          expiresAt: details.expiresAt,
          oldKeyExpiresAt: details.oldKeyExpiresAt,
        },
        audit: { action: 'key-rotate', subject: { type: 'api-key', id: flags.key, partnerId: rotated.partnerId }, details },
      };
    },
  }),
  'key revoke': command({
    changesState: true,
    flags: { key: uuidFlag },
    async run({ em, flags, now }) {
      const key = await revokeApiKey(em, flags.key, now);
      const revokedAt = key.revokedAt?.toISOString();
      return {
        output: { apiKeyId: key.id, revokedAt },
        audit: {
          action: 'key-revoke',
          subject: { type: 'api-key', id: key.id, partnerId: key.partnerId },
          details: { revokedAt, alreadyRevoked: key.revokedAt?.getTime() !== now.getTime() },
        },
      };
    },
  }),
  'key list': command({
    changesState: false,
    flags: { partner: uuidFlag },
    async run({ em, flags }) {
      const keys = await listApiKeys(em, flags.partner);
      return {
        apiKeys: keys.map((key) => ({
          apiKeyId: key.apiKeyId,
          keyPrefix: key.keyPrefix,
          scope: key.scope,
          createdAt: key.createdAt.toISOString(),
          expiresAt: iso(key.expiresAt),
          lastUsedAt: iso(key.lastUsedAt),
          revokedAt: iso(key.revokedAt),
          replacedBy: key.replacedBy,
        })),
        ...(keys.length === MAX_LISTED_API_KEYS ? { truncated: true } : {}),
      };
    },
  }),
};
