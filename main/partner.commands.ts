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
import { CliFailure, command, requiredText, uuidFlag } from './ops-command';

/** Partners and what they own (accounts, users; keys: main/api-key.commands.ts) in the operator CLI (main/ops.cli.ts); each writes its audit row with its effect. */
export const PARTNER_USAGE = `  partner create --name NAME [--fee-percentage P]
  partner set-policy --partner ID [--allowlist required|off] [--cooling-off-minutes 0..10080] [--daily-limit-eur N|none]
  account set-status --partner ID --currency eur --status ACTIVE|WAITING_TO_BE_ACTIVATED
  user upsert --partner ID --external-user-id X --email E --first-name F --last-name L --address A
              --city C --country CC --document-type T --document-number N
              [--pesel P] [--birth-country CC] [--birth-date YYYY-MM-DD]`;

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
  'partner create': command({
    changesState: true,
    flags: { name: requiredText.max(200), 'fee-percentage': decimalText.optional() },
    async run({ em, flags, now, settings }) {
      const feePercentage = flags['fee-percentage'] ?? settings.defaultFeePercentage;
      const partner = await createPartner(em, { name: flags.name, feePercentage }, now, partnerDepositKeys(settings));
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
  }),
  'partner set-policy': command({
    changesState: true,
    flags: {
      partner: uuidFlag,
      allowlist: z.enum(['required', 'off'], 'must be required or off').optional(),
      'cooling-off-minutes': coolingOffMinutes.optional(),
      'daily-limit-eur': dailyLimitEur.optional(),
    },
    async run({ em, flags, now, settings }) {
      const change = {
        allowlist: flags.allowlist,
        coolingOffMinutes: flags['cooling-off-minutes'],
        dailyLimitEur: flags['daily-limit-eur'] === undefined ? undefined : flags['daily-limit-eur'],
      };
      const policy = await setPartnerPolicy(em, flags.partner, change, settings.withdrawalAddressCoolingOffMinutes, now);
      return {
        output: policy,
        audit: {
          action: 'partner-set-policy',
          subject: { type: 'partner', id: flags.partner, partnerId: flags.partner },
          details: { ...change },
        },
      };
    },
  }),
  'account set-status': command({
    changesState: true,
    flags: { partner: uuidFlag, currency: z.enum(['eur']), status: z.enum(['ACTIVE', 'WAITING_TO_BE_ACTIVATED']) },
    async run({ em, flags }) {
      const previous = (await findPartnerAccount(em, flags.partner, flags.currency))?.fiatStatus ?? null;
      const account = await setFiatAccountStatus(em, flags.partner, flags.currency, flags.status);
      return {
        output: { accountId: account.id, currency: account.currency, status: account.fiatStatus },
        audit: {
          action: 'account-set-status',
          subject: { type: 'account', id: account.id, partnerId: flags.partner },
          details: { currency: account.currency, from: previous, to: account.fiatStatus },
        },
      };
    },
  }),
  'user upsert': command({
    changesState: true,
    flags: {
      partner: uuidFlag,
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
    },
    async run({ em, flags, now }) {
      const user = await upsertUser(
        em,
        flags.partner,
        {
          externalUserId: flags['external-user-id'],
          email: flags.email,
          firstName: flags['first-name'],
          lastName: flags['last-name'],
          address: flags.address,
          city: flags.city,
          country: flags.country,
          documentType: flags['document-type'],
          documentNumber: flags['document-number'],
          pesel: flags.pesel ?? null,
          birthCountry: flags['birth-country'] ?? null,
          birthDate: flags['birth-date'] ?? null,
        },
        now,
      );
      return {
        output: { userId: user.id },
        audit: {
          action: 'user-upsert',
          subject: { type: 'partner-user', id: user.id, partnerId: flags.partner },
          // The partner's id for its user; the KYC fields themselves are personal data and stay out.
          details: { externalUserId: user.externalUserId, created: user.createdAt.getTime() === now.getTime() },
        },
      };
    },
  }),
};
