import { z } from 'zod';
import { CRYPTO_CURRENCIES } from '../../core/currencies';
import { amountScaleProblem, amountSchema, slug } from './amount.schema';
import { resolveNetwork } from './network-fee.schema';

const fields = {
  currency: slug.pipe(z.enum(CRYPTO_CURRENCIES, { error: `currency must be one of ${CRYPTO_CURRENCIES.join(', ')}` })),
  amount: amountSchema,
  walletAddress: z.string({ error: 'walletAddress is required' }).min(1, 'walletAddress is required').max(128, 'walletAddress is too long'),
  memo: z.string().max(256, 'memo must be at most 256 characters').nullish(),
  network: z.string().nullish(),
  name: z.string({ error: 'name is required' }).trim().min(1, 'name is required').max(140, 'name must be at most 140 characters'),
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
      sourceExternalUserId: z.string().min(1, 'sourceExternalUserId must not be empty').max(255).optional(),
    })
    .transform((body, context) => {
      if (forUser && body.sourceExternalUserId === undefined) {
        context.addIssue({ code: 'custom', path: ['sourceExternalUserId'], message: 'sourceExternalUserId is required' });
      }
      if (!forUser && body.sourceExternalUserId !== undefined) {
        context.addIssue({ code: 'custom', path: ['sourceExternalUserId'], message: 'sourceExternalUserId belongs to POST /v1/crypto-withdrawal' });
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
