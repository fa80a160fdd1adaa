import { createCryptoWithdrawalActivities } from './crypto-withdrawal.activities';
import type { CustodyDependencies } from './custody-reconciliation';
import type { ActivityDependencies } from './dependencies';
import { createEvmDepositActivities } from './evm-deposit.activities';
import type { EvmDepositDependencies } from './evm-deposit.activities';
import { createEvmSweepActivities } from './evm-sweep.activities';
import type { EvmSweepDependencies } from './evm-sweep.activities';
import { createExchangeActivities } from './exchange.activities';
import { createIncomingSepaActivities } from './incoming-sepa.activities';
import { createReconciliationActivities } from './reconciliation.activities';
import { createSepaReturnActivities } from './sepa-return.activities';
import { createSepaTransferActivities } from './sepa-transfer.activities';
import { createWebhookDeliveryActivities } from './webhook-delivery.activities';
import type { WebhookDeliveryDependencies } from './webhook-delivery.activities';

export function createActivities(
  deps: ActivityDependencies &
    Pick<WebhookDeliveryDependencies, 'webhookDelivery' | 'webhookTargets'> &
    Pick<EvmDepositDependencies, 'evmDeposits'> &
    Pick<EvmSweepDependencies, 'evmSweeps'> &
    CustodyDependencies,
) {
  return {
    ...createReconciliationActivities(deps),
    ...createExchangeActivities(deps),
    ...createCryptoWithdrawalActivities(deps),
    ...createSepaTransferActivities(deps),
    ...createWebhookDeliveryActivities(deps),
    ...createIncomingSepaActivities(deps),
    ...createSepaReturnActivities(deps),
    ...createEvmDepositActivities(deps),
    ...createEvmSweepActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
