import type {
  CryptoWithdrawalWorkflow,
  EvmDepositWatcherWorkflow,
  EvmSweepWorkflow,
  EvmSweeperWorkflow,
  ExchangeWorkflow,
  IncomingSepaWorkflow,
  ReconciliationWorkflow,
  SepaTransferWorkflow,
  UtxoSweeperWorkflow,
  WebhookDispatcherWorkflow,
} from '../contracts';
import type { cryptoWithdrawalWorkflow } from './crypto-withdrawal.workflow';
import type { evmDepositWatcherWorkflow } from './evm-deposit-watcher.workflow';
import type { evmSweepWorkflow } from './evm-sweep.workflow';
import type { evmSweeperWorkflow } from './evm-sweeper.workflow';
import type { exchangeWorkflow } from './exchange.workflow';
import type { incomingSepaWorkflow } from './incoming-sepa.workflow';
import type { reconciliationWorkflow } from './reconciliation.workflow';
import type { sepaTransferWorkflow } from './sepa-transfer.workflow';
import type { utxoSweeperWorkflow } from './utxo-sweeper.workflow';
import type { webhookDispatcherWorkflow } from './webhook-dispatcher.workflow';

/** Every workflow the worker registers; this file is the worker's workflowsPath. */
export { cryptoWithdrawalWorkflow } from './crypto-withdrawal.workflow';
export { evmDepositWatcherWorkflow } from './evm-deposit-watcher.workflow';
export { evmSweepWorkflow } from './evm-sweep.workflow';
export { evmSweeperWorkflow } from './evm-sweeper.workflow';
export { exchangeWorkflow } from './exchange.workflow';
export { incomingSepaWorkflow } from './incoming-sepa.workflow';
export { reconciliationWorkflow } from './reconciliation.workflow';
export { sepaTransferWorkflow } from './sepa-transfer.workflow';
export { utxoSweeperWorkflow } from './utxo-sweeper.workflow';
export { webhookDispatcherWorkflow } from './webhook-dispatcher.workflow';

/** Callers start workflows through their contracts (contracts/): a drifting input or result fails to compile here. */
type Implements<Contract, Implementation extends Contract> = Implementation;
export type ContractChecks = [
  Implements<CryptoWithdrawalWorkflow, typeof cryptoWithdrawalWorkflow>,
  Implements<EvmDepositWatcherWorkflow, typeof evmDepositWatcherWorkflow>,
  Implements<EvmSweepWorkflow, typeof evmSweepWorkflow>,
  Implements<EvmSweeperWorkflow, typeof evmSweeperWorkflow>,
  Implements<ExchangeWorkflow, typeof exchangeWorkflow>,
  Implements<IncomingSepaWorkflow, typeof incomingSepaWorkflow>,
  Implements<ReconciliationWorkflow, typeof reconciliationWorkflow>,
  Implements<SepaTransferWorkflow, typeof sepaTransferWorkflow>,
  Implements<UtxoSweeperWorkflow, typeof utxoSweeperWorkflow>,
  Implements<WebhookDispatcherWorkflow, typeof webhookDispatcherWorkflow>,
];
