import type { Currency } from '../core/currencies';
import type { OperationProgress, WorkflowContract } from './operation.contract';
import { OPERATION_TYPES, operationWorkflowId } from '../core/operation-types';

export interface ExchangeInput {
  exchangeId: string;
  partnerId: string;
  lockId: string;
  currencyFrom: Currency;
  currencyTo: Currency;
  /** In currencyFrom, exact decimal string. */
  amount: string;
  /** When the API received the request (ISO 8601): the lock must be valid at that moment. */
  requestedAt: string;
}

export type ExchangeResult = OperationProgress & { exchangeId: string };
export type ExchangeWorkflow = (input: ExchangeInput) => Promise<ExchangeResult>;

export const exchangeContract: WorkflowContract<ExchangeWorkflow> = {
  workflowType: OPERATION_TYPES.exchange.workflowType,
  workflowId: (exchangeId) => operationWorkflowId('exchange', exchangeId),
};
