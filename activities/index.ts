import {
  cryptoWithdrawalContract,
  evmDepositWatcherContract,
  evmSweepContract,
  evmSweeperContract,
  exchangeContract,
  incomingSepaContract,
  reconciliationContract,
  sepaTransferContract,
  utxoSweeperContract,
  webhookDispatcherContract,
} from '../contracts';
import { createCryptoWithdrawalActivities } from './crypto-withdrawal.activities';
import type { CustodyDependencies } from './custody-reconciliation';
import type { ActivityDependencies } from './dependencies';
import { createEvmDepositActivities } from './evm-deposit.activities';
import type { EvmDepositDependencies } from './evm-deposit.activities';
import { createEvmSweepActivities } from './evm-sweep.activities';
import type { EvmSweepDependencies } from './evm-sweep.activities';
import { createUtxoDepositActivities } from './utxo-deposit.activities';
import { createUtxoSweepActivities } from './utxo-sweep.activities';
import type { UtxoSweepDependencies } from './utxo-sweep.activities';
import type { UtxoDepositDependencies } from './utxo-deposit.activities';
import { createExchangeActivities } from './exchange.activities';
import { createIncomingSepaActivities } from './incoming-sepa.activities';
import { createReconciliationActivities } from './reconciliation.activities';
import { createSepaReturnActivities } from './sepa-return.activities';
import { createSepaTransferActivities } from './sepa-transfer.activities';
import { createWebhookDeliveryActivities } from './webhook-delivery.activities';
import type { WebhookDeliveryDependencies } from './webhook-delivery.activities';
import { boundTo } from './workflow-binding';

/** The general worker's activities, each bound to the workflow that runs it (workflow-binding.ts); no sweep signs here. */
export function createActivities(
  deps: ActivityDependencies &
    Pick<WebhookDeliveryDependencies, 'webhookDelivery' | 'webhookTargets'> &
    Pick<EvmDepositDependencies, 'evmDeposits'> &
    Pick<UtxoDepositDependencies, 'utxoDeposits'> &
    CustodyDependencies,
) {
  return {
    ...boundTo(reconciliationContract, deps, createReconciliationActivities(deps)),
    ...boundTo(exchangeContract, deps, createExchangeActivities(deps)),
    ...boundTo(cryptoWithdrawalContract, deps, createCryptoWithdrawalActivities(deps)),
    ...boundTo(sepaTransferContract, deps, createSepaTransferActivities(deps)),
    ...boundTo(webhookDispatcherContract, deps, createWebhookDeliveryActivities(deps)),
    ...boundTo(incomingSepaContract, deps, { ...createIncomingSepaActivities(deps), ...createSepaReturnActivities(deps) }),
    ...boundTo(evmDepositWatcherContract, deps, { ...createEvmDepositActivities(deps), ...createUtxoDepositActivities(deps) }),
  };
}

/**
 * The sweeper's activities (`npm run sweeper`, its own task queue): the only ones that sign for deposit addresses, so
 * the only process that holds deposit keys runs no webhook, bank or partner-chosen outbound request.
 */
export function createSweeperActivities(
  deps: Pick<ActivityDependencies, 'pool' | 'clock' | 'log'> & Pick<EvmSweepDependencies, 'evmSweeps'> & UtxoSweepDependencies,
) {
  const { startDueEvmSweeps, ...sweep } = createEvmSweepActivities(deps);
  return {
    ...boundTo(evmSweeperContract, deps, { startDueEvmSweeps }),
    ...boundTo(utxoSweeperContract, deps, createUtxoSweepActivities(deps)),
    ...boundTo(evmSweepContract, deps, sweep),
  };
}

/** What workflows may schedule: the general worker's and the sweeper's, each on its own task queue. */
export type Activities = ReturnType<typeof createActivities> & ReturnType<typeof createSweeperActivities>;

/** The general worker's, which a test may decorate (worker/worker.ts, wrapActivities). */
export type WorkerActivities = ReturnType<typeof createActivities>;
