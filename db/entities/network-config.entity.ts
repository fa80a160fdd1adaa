import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';
import { CHAIN_MODES } from '../../core/chain-parameters';
import type { Currency } from '../../core/currencies';
import type { Network } from '../../core/networks';
import { DecimalStringType } from '../types/decimal-string.type';

/** Withdrawal fee and limits per currency and network; data, so operators change it without a deploy. */
export const NetworkConfig = defineEntity({
  name: 'NetworkConfig',
  tableName: 'network_config',
  properties: {
    currency: p.text().$type<Currency>().primary(),
    network: p.text().$type<Network>().primary(),
    chain: p.enum([...CHAIN_MODES]),
    /** Derived by Postgres from `chain`, for readers of the flag: never written. */
    mainnet: p.boolean().generated("(chain = 'mainnet') stored"),
    feeWithdrawal: p.type(new DecimalStringType()).fieldName('fee_withdrawal'),
    minWithdrawal: p.type(new DecimalStringType()).fieldName('min_withdrawal'),
    minDeposit: p.type(new DecimalStringType()).fieldName('min_deposit'),
  },
});
export type NetworkConfig = InferEntity<typeof NetworkConfig>;
