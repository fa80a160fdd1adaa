import { AccountSchema } from './account.entity';
import { ApiKeySchema } from './api-key.entity';
import { CryptoWithdrawalSchema } from './crypto-withdrawal.entity';
import { DepositSchema } from './deposit.entity';
import { ExchangeSchema } from './exchange.entity';
import { IdempotencyRecordSchema } from './idempotency-record.entity';
import { LedgerPostingSchema } from './ledger-posting.entity';
import { LedgerTransferSchema } from './ledger-transfer.entity';
import { NetworkConfigSchema } from './network-config.entity';
import { OperatorActionSchema } from './operator-action.entity';
import { PartnerUserSchema } from './partner-user.entity';
import { PartnerSchema } from './partner.entity';
import { RateLockSchema } from './rate-lock.entity';
import { ReconciliationReportSchema } from './reconciliation-report.entity';
import { SepaTransferSchema } from './sepa-transfer.entity';

export const ENTITY_SCHEMAS = [
  PartnerSchema,
  ApiKeySchema,
  PartnerUserSchema,
  AccountSchema,
  LedgerTransferSchema,
  LedgerPostingSchema,
  NetworkConfigSchema,
  RateLockSchema,
  DepositSchema,
  ExchangeSchema,
  CryptoWithdrawalSchema,
  SepaTransferSchema,
  IdempotencyRecordSchema,
  ReconciliationReportSchema,
  OperatorActionSchema,
];

export { Account } from './account.entity';
export { ApiKey } from './api-key.entity';
export { CryptoWithdrawal } from './crypto-withdrawal.entity';
export { Deposit } from './deposit.entity';
export { Exchange } from './exchange.entity';
export { IdempotencyRecord } from './idempotency-record.entity';
export { LedgerPosting } from './ledger-posting.entity';
export { LedgerTransfer } from './ledger-transfer.entity';
export { NetworkConfig } from './network-config.entity';
export { OperatorAction } from './operator-action.entity';
export { Partner } from './partner.entity';
export { PartnerUser } from './partner-user.entity';
export { RateLock } from './rate-lock.entity';
export { ReconciliationReport } from './reconciliation-report.entity';
export { SepaTransfer } from './sepa-transfer.entity';
