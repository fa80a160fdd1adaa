import { createCryptoWithdrawalActivities } from './crypto-withdrawal.activities';
import type { ActivityDependencies } from './dependencies';
import { createExchangeActivities } from './exchange.activities';
import { createIncomingSepaActivities } from './incoming-sepa.activities';
import { createReconciliationActivities } from './reconciliation.activities';
import { createSepaReturnActivities } from './sepa-return.activities';
import { createSepaTransferActivities } from './sepa-transfer.activities';
import { createWebhookDeliveryActivities } from './webhook-delivery.activities';
import type { WebhookDeliveryDependencies } from './webhook-delivery.activities';

export function createActivities(deps: ActivityDependencies & Pick<WebhookDeliveryDependencies, 'webhookDelivery' | 'webhookTargets'>) {
  return {
    ...createReconciliationActivities(deps),
    ...createExchangeActivities(deps),
    ...createCryptoWithdrawalActivities(deps),
    ...createSepaTransferActivities(deps),
    ...createWebhookDeliveryActivities(deps),
    ...createIncomingSepaActivities(deps),
    ...createSepaReturnActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
