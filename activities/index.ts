import { createCryptoWithdrawalActivities } from './crypto-withdrawal.activities';
import type { ActivityDependencies } from './dependencies';
import { createExchangeActivities } from './exchange.activities';
import { createReconciliationActivities } from './reconciliation.activities';
import { createSepaTransferActivities } from './sepa-transfer.activities';

export function createActivities(deps: ActivityDependencies) {
  return {
    ...createReconciliationActivities(deps),
    ...createExchangeActivities(deps),
    ...createCryptoWithdrawalActivities(deps),
    ...createSepaTransferActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
