import { z } from 'zod';
import { CRYPTO_CURRENCIES } from '../../core/currencies';
import { NETWORKS } from '../../core/networks';
import { CRYPTO_WITHDRAWAL_LIMITS } from '../../core/payment-limits';
import { WITHDRAWAL_ADDRESS_BOOK_LIMITS, WITHDRAWAL_ADDRESS_STATUSES } from '../../core/withdrawal-address-book';
import { currencyField, fitsIn } from './amount.schema';
import { SINGLE_NETWORKS_TEXT, resolveNetwork } from './network-fee.schema';
import { idField, timestampField } from './response-fields.schema';
import { addProblem } from './validation';

const { walletAddressMaxLength } = CRYPTO_WITHDRAWAL_LIMITS;
const { labelMaxLength } = WITHDRAWAL_ADDRESS_BOOK_LIMITS;

const ADDRESS_EXAMPLE = '0x52908400098527886E0F7030069857D2E4169EE7';

/** POST /v1/partner/withdrawal-addresses; the operation checks the address's format and checksum for the network. */
export const withdrawalAddressBodySchema = z
  .strictObject({
    currency: currencyField(CRYPTO_CURRENCIES, 'The crypto currency withdrawals to this address are in (letter case is ignored).', 'usdc'),
    network: z
      .string()
      .nullish()
      .meta({
        description: `One of the currency's networks, as in a withdrawal: for usdc ethereum (the default) or polygon; every other currency has one network, which may be sent or omitted (${SINGLE_NETWORKS_TEXT}). Letter case is ignored. An entry serves withdrawals on its network only.`,
        examples: ['polygon'],
      }),
    address: z
      .string({ error: 'address is required' })
      .min(1, 'address is required')
      .refine(fitsIn(walletAddressMaxLength), `address must be at most ${walletAddressMaxLength} characters`)
      .meta({
        description:
          'The destination address, valid for the network and the configured mainnet or testnet (EIP-55 checksum for ethereum and polygon). Stored as sent; matched without regard to letter case for ethereum, polygon and bech32 addresses, exactly for base58 ones.',
        maxLength: walletAddressMaxLength,
        examples: [ADDRESS_EXAMPLE],
      }),
    label: z
      .string({ error: 'label is required' })
      .trim()
      .min(1, 'label is required')
      .refine(fitsIn(labelMaxLength), `label must be at most ${labelMaxLength} characters`)
      .meta({ description: 'What the address is, for people (trimmed).', maxLength: labelMaxLength, examples: ['Treasury cold wallet'] }),
  })
  .transform((body, context) => {
    const network = resolveNetwork(body.currency, body.network ?? undefined);
    if (typeof network === 'string') return { currency: body.currency, network, address: body.address, label: body.label };
    addProblem(context, 'network', network.problem);
    return z.NEVER;
  })
  .meta({ id: 'WithdrawalAddressRequest', description: "An address for the partner's withdrawal-address book." });

const ENTRY_ID = '3f6c2a1e-8b4d-4e7f-9a0b-5c1d2e3f4a5b';

/** One entry, as every address-book answer (and the created webhook's data) shows it. */
export const withdrawalAddressSchema = z
  .strictObject({
    id: idField('The entry id, for DELETE /v1/partner/withdrawal-addresses/{id}.', ENTRY_ID),
    currency: z.enum(CRYPTO_CURRENCIES).meta({ description: 'The currency, lower case.', examples: ['usdc'] }),
    network: z.enum(NETWORKS).meta({ description: 'The network, lower case.', examples: ['polygon'] }),
    address: z.string().meta({ description: 'The address, as it was sent.', examples: [ADDRESS_EXAMPLE] }),
    label: z.string().meta({ description: 'The label.', examples: ['Treasury cold wallet'] }),
    status: z.enum(WITHDRAWAL_ADDRESS_STATUSES).meta({
      description:
        'PENDING until activeFrom (the cooling-off), then ACTIVE: only an ACTIVE entry lets a withdrawal through when the allowlist is required.',
    }),
    activeFrom: timestampField('When the entry becomes ACTIVE: createdAt plus the cooling-off.', '2026-11-22T16:12:27.786Z'),
    createdAt: timestampField('When the entry was added.', '2026-11-21T16:12:27.786Z'),
  })
  .meta({ id: 'WithdrawalAddress' });

/** The example entry, PENDING during its cooling-off. */
export const WITHDRAWAL_ADDRESS_EXAMPLE = {
  id: ENTRY_ID,
  currency: 'usdc',
  network: 'polygon',
  address: ADDRESS_EXAMPLE,
  label: 'Treasury cold wallet',
  status: 'PENDING',
  activeFrom: '2026-11-22T16:12:27.786Z',
  createdAt: '2026-11-21T16:12:27.786Z',
} as const;
