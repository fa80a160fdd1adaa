/** Who receives a payment, as the spec's enums name it; one declaration for every layer. */
export const WALLET_TYPES = ['CUSTODIAL', 'NON_CUSTODIAL', 'OTHER'] as const;
export type WalletType = (typeof WALLET_TYPES)[number];

export const RECEIVER_TYPES = ['NATURAL', 'LEGAL'] as const;
export type ReceiverType = (typeof RECEIVER_TYPES)[number];
