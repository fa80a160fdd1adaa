/** Every workflow the worker registers; this file is the worker's workflowsPath. */
export { cryptoWithdrawalWorkflow } from './crypto-withdrawal.workflow';
export { exchangeWorkflow } from './exchange.workflow';
export { reconciliationWorkflow } from './reconciliation.workflow';
export { sepaTransferWorkflow } from './sepa-transfer.workflow';
