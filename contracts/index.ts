/** The contracts between workflows and their callers, one module per workflow family. */
export * from './operation.contract';
export * from './exchange.contract';
export * from './crypto-withdrawal.contract';
export * from './sepa-transfer.contract';
export * from './reconciliation.contract';
export * from './webhook-dispatcher.contract';
export * from './incoming-sepa.contract';
export * from './evm-deposit-watcher.contract';
export * from './evm-sweep.contract';
