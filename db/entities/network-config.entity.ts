import { EntitySchema } from '@mikro-orm/core';
import { DecimalStringType } from '../types/decimal-string.type';

/** Withdrawal fee and limits per currency and network; data, so operators change it without a deploy. */
export class NetworkConfig {
  currency!: string;
  network!: string;
  mainnet!: boolean;
  feeWithdrawal!: string;
  minWithdrawal!: string;
  minDeposit!: string;
}

export const NetworkConfigSchema = new EntitySchema<NetworkConfig>({
  class: NetworkConfig,
  tableName: 'network_config',
  properties: {
    currency: { type: 'text', primary: true },
    network: { type: 'text', primary: true },
    mainnet: { type: 'boolean' },
    feeWithdrawal: { type: new DecimalStringType(), fieldName: 'fee_withdrawal' },
    minWithdrawal: { type: new DecimalStringType(), fieldName: 'min_withdrawal' },
    minDeposit: { type: new DecimalStringType(), fieldName: 'min_deposit' },
  },
});
