import { z } from 'zod';
import { CRYPTO_CURRENCIES } from '../../core/currencies';
import { CRYPTO_WITHDRAWAL_LIMITS } from '../../core/payment-limits';
import { jsonNumber } from '../http/exact-json';
import { amountField, amountScaleProblem, currencyField, fitsIn } from './amount.schema';
import { SINGLE_NETWORKS_TEXT, resolveNetwork } from './network-fee.schema';
import { addProblem } from './validation';

const { beneficiaryNameMaxLength, memoMaxLength, walletAddressMaxLength, externalUserIdMaxLength } = CRYPTO_WITHDRAWAL_LIMITS;

const fields = {
  currency: currencyField(CRYPTO_CURRENCIES, 'The crypto currency to withdraw (letter case is ignored).', 'btc'),
  amount: amountField('What the destination receives, in `currency`; the balance is debited this plus the network fee (get-network-fee).', [
    jsonNumber('0.015'),
    '0.5',
  ]),
  walletAddress: z
    .string({ error: 'walletAddress is required' })
    .min(1, 'walletAddress is required')
    .refine(fitsIn(walletAddressMaxLength), `walletAddress must be at most ${walletAddressMaxLength} characters`)
    .meta({
      description: "The destination address, valid for the currency's chain and the configured mainnet or testnet.",
      maxLength: walletAddressMaxLength,
      examples: ['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'],
    }),
  memo: z
    .string()
    .refine(fitsIn(memoMaxLength), `memo must be at most ${memoMaxLength} characters`)
    .nullish()
    .meta({ description: 'Optional memo or title.', maxLength: memoMaxLength, examples: ['invoice 2026-118'] }),
  network: z
    .string()
    .nullish()
    .meta({
      description: `One of the currency's networks: for usdc POLYGON to withdraw on polygon, omitted (or ETHEREUM) for ethereum; every other currency has one network, which may be sent or omitted (${SINGLE_NETWORKS_TEXT}). Letter case is ignored; a network the currency does not move on is refused.`,
      examples: ['POLYGON'],
    }),
  name: z
    .string({ error: 'name is required' })
    .trim()
    .min(1, 'name is required')
    .refine(fitsIn(beneficiaryNameMaxLength), `name must be at most ${beneficiaryNameMaxLength} characters`)
    .meta({
      description: "The beneficiary's name for the travel rule (AML/KYC compliance).",
      maxLength: beneficiaryNameMaxLength,
      examples: ['Jane Doe'],
    }),
  walletType: z
    .enum(['CUSTODIAL', 'NON_CUSTODIAL', 'OTHER'], { error: 'walletType must be CUSTODIAL, NON_CUSTODIAL or OTHER' })
    .meta({ description: 'Who controls the destination wallet: a custodian (an exchange) or the beneficiary.' }),
  receiverType: z
    .enum(['NATURAL', 'LEGAL'], { error: 'receiverType must be NATURAL or LEGAL' })
    .meta({ description: 'The beneficiary is a natural person or a legal person (a company).' }),
};

/** Both withdrawal bodies; the user's needs sourceExternalUserId, the partner's refuses it. */
function withdrawalBodySchema(forUser: boolean) {
  return z
    .strictObject({
      ...fields,
      sourceExternalUserId: z
        .string()
        .min(1, 'sourceExternalUserId must not be empty')
        .refine(fitsIn(externalUserIdMaxLength), `sourceExternalUserId must be at most ${externalUserIdMaxLength} characters`)
        .optional()
        .meta({
          description:
            "The user's id in the partner's system (a user registered with the partner); the user is the travel-rule originator.",
          maxLength: externalUserIdMaxLength,
          examples: ['user-4711'],
        }),
    })
    .transform((body, context) => {
      if (forUser && body.sourceExternalUserId === undefined)
        addProblem(context, 'sourceExternalUserId', 'sourceExternalUserId is required');
      if (!forUser && body.sourceExternalUserId !== undefined)
        addProblem(context, 'sourceExternalUserId', 'sourceExternalUserId belongs to POST /v1/crypto-withdrawal');
      const network = resolveNetwork(body.currency, body.network ?? undefined);
      if (typeof network !== 'string') addProblem(context, 'network', network.problem);
      const scaleProblem = amountScaleProblem(body.amount, body.currency);
      if (scaleProblem) addProblem(context, 'amount', scaleProblem);
      if (typeof network !== 'string' || scaleProblem) return z.NEVER;
      return { ...body, network, memo: body.memo ?? null, sourceExternalUserId: body.sourceExternalUserId ?? null };
    });
}

export const partnerCryptoWithdrawalBodySchema = withdrawalBodySchema(false).meta({
  id: 'PartnerCryptoWithdrawalRequest',
  description: "A withdrawal from the partner's own balance; the partner is the travel-rule originator.",
  // One schema serves both routes; each documents only the fields it accepts.
  override: ({ jsonSchema }: { jsonSchema: ObjectJsonSchema }) => {
    delete jsonSchema.properties?.sourceExternalUserId;
    jsonSchema.required = jsonSchema.required?.filter((field) => field !== 'sourceExternalUserId');
  },
});
export const userCryptoWithdrawalBodySchema = withdrawalBodySchema(true).meta({
  id: 'UserCryptoWithdrawalRequest',
  description: "A withdrawal on behalf of one of the partner's users, debited from the partner's balance.",
  override: ({ jsonSchema }: { jsonSchema: ObjectJsonSchema }) => {
    jsonSchema.required = [...new Set([...(jsonSchema.required ?? []), 'sourceExternalUserId'])];
  },
});

/** The document's view of a JSON schema object: only what the two overrides above touch. */
interface ObjectJsonSchema {
  properties?: Record<string, unknown>;
  required?: string[];
}
