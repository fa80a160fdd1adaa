import { z } from 'zod';
import { CRYPTO_CURRENCIES } from '../../core/currencies';
import { CRYPTO_WITHDRAWAL_LIMITS, textLength } from '../../core/payment-limits';
import { amountScaleProblem, amountSchema, slug } from './amount.schema';
import { resolveNetwork } from './network-fee.schema';

const { beneficiaryNameMaxLength, memoMaxLength, walletAddressMaxLength, externalUserIdMaxLength } = CRYPTO_WITHDRAWAL_LIMITS;

/** Lengths count characters (code points), as the limits do: an astral character is one. */
const fitsIn = (max: number) => (text: string) => textLength(text) <= max;

const fields = {
  currency: slug.pipe(z.enum(CRYPTO_CURRENCIES, { error: `currency must be one of ${CRYPTO_CURRENCIES.join(', ')}` })),
  amount: amountSchema,
  walletAddress: z
    .string({ error: 'walletAddress is required' })
    .min(1, 'walletAddress is required')
    .refine(fitsIn(walletAddressMaxLength), `walletAddress must be at most ${walletAddressMaxLength} characters`),
  memo: z.string().refine(fitsIn(memoMaxLength), `memo must be at most ${memoMaxLength} characters`).nullish(),
  network: z.string().nullish(),
  name: z
    .string({ error: 'name is required' })
    .trim()
    .min(1, 'name is required')
    .refine(fitsIn(beneficiaryNameMaxLength), `name must be at most ${beneficiaryNameMaxLength} characters`),
  walletType: z.enum(['CUSTODIAL', 'NON_CUSTODIAL', 'OTHER'], { error: 'walletType must be CUSTODIAL, NON_CUSTODIAL or OTHER' }),
  receiverType: z.enum(['NATURAL', 'LEGAL'], { error: 'receiverType must be NATURAL or LEGAL' }),
};

/**
 * Both withdrawal bodies: network only for usdc (POLYGON, any case); the amount's scale is the
 * currency's. The user variant also needs sourceExternalUserId; the partner variant refuses it.
 */
function withdrawalBodySchema(forUser: boolean) {
  return z
    .strictObject({
      ...fields,
      sourceExternalUserId: z
        .string()
        .min(1, 'sourceExternalUserId must not be empty')
        .refine(fitsIn(externalUserIdMaxLength), `sourceExternalUserId must be at most ${externalUserIdMaxLength} characters`)
        .optional(),
    })
    .transform((body, context) => {
      if (forUser && body.sourceExternalUserId === undefined) {
        context.addIssue({ code: 'custom', path: ['sourceExternalUserId'], message: 'sourceExternalUserId is required' });
      }
      if (!forUser && body.sourceExternalUserId !== undefined) {
        context.addIssue({
          code: 'custom',
          path: ['sourceExternalUserId'],
          message: 'sourceExternalUserId belongs to POST /v1/crypto-withdrawal',
        });
      }
      const network = resolveNetwork(body.currency, body.network ?? undefined);
      if (typeof network !== 'string') context.addIssue({ code: 'custom', path: ['network'], message: network.problem });
      const scaleProblem = amountScaleProblem(body.amount, body.currency);
      if (scaleProblem) context.addIssue({ code: 'custom', path: ['amount'], message: scaleProblem });
      if (typeof network !== 'string' || scaleProblem) return z.NEVER;
      return { ...body, network, memo: body.memo ?? null, sourceExternalUserId: body.sourceExternalUserId ?? null };
    });
}

export const partnerCryptoWithdrawalBodySchema = withdrawalBodySchema(false);
export const userCryptoWithdrawalBodySchema = withdrawalBodySchema(true);

export type CryptoWithdrawalBody = z.output<typeof partnerCryptoWithdrawalBodySchema>;
