import { Account } from './account.entity';
import { ApiKey } from './api-key.entity';
import { CryptoWithdrawal } from './crypto-withdrawal.entity';
import { CryptoWithdrawalKeptFee } from './crypto-withdrawal-kept-fee.entity';
import { Deposit } from './deposit.entity';
import { Exchange } from './exchange.entity';
import { IdempotencyRecord } from './idempotency-record.entity';
import { IncomingSepaCredit } from './incoming-sepa-credit.entity';
import { LedgerPosting } from './ledger-posting.entity';
import { LedgerTransfer } from './ledger-transfer.entity';
import { ManualCredit } from './manual-credit.entity';
import { NetworkConfig } from './network-config.entity';
import { OperatorAction } from './operator-action.entity';
import { OperatorActionUse } from './operator-action-use.entity';
import { PartnerUser } from './partner-user.entity';
import { Partner } from './partner.entity';
import { PartnerPolicy } from './partner-policy.entity';
import { RateLock } from './rate-lock.entity';
import { ReconciliationReport } from './reconciliation-report.entity';
import { SepaTransfer } from './sepa-transfer.entity';
import { WebhookDeliveryAttempt } from './webhook-delivery-attempt.entity';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import { WebhookEvent } from './webhook-event.entity';

export const ENTITY_SCHEMAS = [
  Partner,
  PartnerPolicy,
  ApiKey,
  PartnerUser,
  Account,
  LedgerTransfer,
  LedgerPosting,
  NetworkConfig,
  RateLock,
  Deposit,
  Exchange,
  CryptoWithdrawal,
  CryptoWithdrawalKeptFee,
  SepaTransfer,
  IdempotencyRecord,
  IncomingSepaCredit,
  ReconciliationReport,
  OperatorAction,
  OperatorActionUse,
  ManualCredit,
  WebhookEndpoint,
  WebhookEvent,
  WebhookDeliveryAttempt,
];
