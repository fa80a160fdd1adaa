import { z } from 'zod';
import type { DepositAccountKeys } from '../core/deposit-addresses';
import type { Settings } from '../core/settings';
import { findPartnerAccount } from '../db/ledger/accounts';
import { setFiatAccountStatus } from '../db/services/account.service';
import { createApiKey } from '../db/services/api-key.service';
import { setPartnerPolicy } from '../db/services/partner-policy.service';
import { createPartner } from '../db/services/partner.service';
import { upsertUser } from '../db/services/partner-user.service';
import { MissingDepositKeysError, depositAccountKeys } from './deposit-keys';
import { withDevelopmentDepositSeed } from './development-deposit-seed';
import type { Command } from './ops-command';
import { CliFailure, parseFlags, requiredText } from './ops-command';

/** Partners and what they own (accounts, users; keys: main/api-key.commands.ts) in the operator CLI (main/ops.cli.ts); each writes its audit row with its effect. */
export const PARTNER_USAGE = `  partner create --name NAME [--fee-percentage P]
  partner set-policy --partner ID [--allowlist required|off] [--cooling-off-minutes 0..10080] [--daily-limit-eur N|none]
  account set-status --partner ID --currency eur --status ACTIVE|WAITING_TO_BE_ACTIVATED
  user upsert --partner ID --external-user-id X --email E --first-name F --last-name L --address A
              --city C --country CC --document-type T --document-number N
              [--pesel P] [--birth-country CC] [--birth-date YYYY-MM-DD]`;

const uuid = z.uuid('must be a UUID');
const decimalText = z.string().regex(/^\d+(\.\d+)?$/, 'must be a plain decimal, e.g. 12.5');
/** Whole minutes, 0 to a week, as a flag's text. */
const coolingOffMinutes = z
  .string()
  .regex(/^\d{1,5}$/, 'must be a whole number of minutes, 0 to 10080')
  .transform(Number)
  .refine((minutes) => minutes <= 7 * 24 * 60, 'must be at most 10080 (a week)');
/** `none`, or a plain decimal of EUR with at most 2 decimals and 36 digits before them. */
const dailyLimitEur = z.union([
  z.literal('none').transform(() => null),
  z.string().regex(/^\d{1,36}(\.\d{1,2})?$/, 'must be `none` or a plain decimal of EUR with at most 2 decimals, e.g. 5000'),
]);
const countryCode = z.string().regex(/^[A-Z]{2}$/, 'must be a two-letter country code, e.g. PL');

/** The configured extended public keys, else (development) the seed in the data folder; refused, naming the variables, before anything is written. */
function partnerDepositKeys(settings: Settings): DepositAccountKeys {
  try {
    return depositAccountKeys(withDevelopmentDepositSeed(settings, { create: false }));
  } catch (error) {
    if (error instanceof MissingDepositKeysError)
      throw new CliFailure({ error: 'missing-deposit-keys', message: error.message, variables: error.variables });
    throw error;
  }
}

export const partnerCommands: Record<string, Command> = {
  'partner create': {
    changesState: true,
    async run({ em, flags, now, settings }) {
      const input = parseFlags(z.object({ name: requiredText.max(200), 'fee-percentage': decimalText.optional() }), flags);
      const feePercentage = input['fee-percentage'] ?? settings.defaultFeePercentage;
      const partner = await createPartner(em, { name: input.name, feePercentage }, now, partnerDepositKeys(settings));
      const key = await createApiKey(em, partner.id, now);
      return {
        output: { partnerId: partner.id, apiKey: key.apiKey },
        audit: {
          action: 'partner-create',
          subject: { type: 'partner', id: partner.id, partnerId: partner.id },
          details: { name: partner.name, feePercentage, apiKeyId: key.apiKeyId },
        },
      };
    },
  },
  'partner set-policy': {
    changesState: true,
    async run({ em, flags, now, settings }) {
      const input = parseFlags(
        z.object({
          partner: uuid,
          allowlist: z.enum(['required', 'off'], 'must be required or off').optional(),
          'cooling-off-minutes': coolingOffMinutes.optional(),
          'daily-limit-eur': dailyLimitEur.optional(),
        }),
        flags,
      );
      const change = {
        allowlist: input.allowlist,
        coolingOffMinutes: input['cooling-off-minutes'],
        dailyLimitEur: input['daily-limit-eur'] === undefined ? undefined : input['daily-limit-eur'],
      };
      const policy = await setPartnerPolicy(em, input.partner, change, settings.withdrawalAddressCoolingOffMinutes, now);
      return {
        output: policy,
        audit: {
          action: 'partner-set-policy',
          subject: { type: 'partner', id: input.partner, partnerId: input.partner },
          details: { ...change },
        },
      };
    },
  },
  'account set-status': {
    changesState: true,
    async run({ em, flags }) {
      const input = parseFlags(
        z.object({ partner: uuid, currency: z.enum(['eur']), status: z.enum(['ACTIVE', 'WAITING_TO_BE_ACTIVATED']) }),
        flags,
      );
      const previous = (await findPartnerAccount(em, input.partner, input.currency))?.fiatStatus ?? null;
      const account = await setFiatAccountStatus(em, input.partner, input.currency, input.status);
      return {
        output: { accountId: account.id, currency: account.currency, status: account.fiatStatus },
        audit: {
          action: 'account-set-status',
          subject: { type: 'account', id: account.id, partnerId: input.partner },
          details: { currency: account.currency, from: previous, to: account.fiatStatus },
        },
      };
    },
  },
  'user upsert': {
    changesState: true,
    async run({ em, flags, now }) {
      const input = parseFlags(
        z.object({
          partner: uuid,
          'external-user-id': requiredText.max(255),
          email: z.email('must be an email address'),
          'first-name': requiredText,
          'last-name': requiredText,
          address: requiredText,
          city: requiredText,
          country: countryCode,
          'document-type': requiredText,
          'document-number': requiredText,
          pesel: z
            .string()
            .regex(/^\d{11}$/, 'must be 11 digits')
            .optional(),
          'birth-country': countryCode.optional(),
          'birth-date': z.iso.date('must be YYYY-MM-DD').optional(),
        }),
        flags,
      );
      const user = await upsertUser(
        em,
        input.partner,
        {
          externalUserId: input['external-user-id'],
          email: input.email,
          firstName: input['first-name'],
          lastName: input['last-name'],
          address: input.address,
          city: input.city,
          country: input.country,
          documentType: input['document-type'],
          documentNumber: input['document-number'],
          pesel: input.pesel ?? null,
          birthCountry: input['birth-country'] ?? null,
          birthDate: input['birth-date'] ?? null,
        },
        now,
      );
      return {
        output: { userId: user.id },
        audit: {
          action: 'user-upsert',
          subject: { type: 'partner-user', id: user.id, partnerId: input.partner },
          // The partner's id for its user; the KYC fields themselves are personal data and stay out.
          details: { externalUserId: user.externalUserId, created: user.createdAt.getTime() === now.getTime() },
        },
      };
    },
  },
};
