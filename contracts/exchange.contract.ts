import type { Currency } from '../core/currencies';
import type { OperationProgress, WorkflowContract } from './operation.contract';
import { OPERATION_TYPES, operationWorkflowId } from '../core/operation-types';

/** The exchange's id (its first step reads what the API accepted), and its pair for the Temporal UI. */
export interface ExchangeInput {
  exchangeId: string;
  currencyFrom: Currency;
  currencyTo: Currency;
}

export type ExchangeResult = OperationProgress & { exchangeId: string };
export type ExchangeWorkflow = (input: ExchangeInput) => Promise<ExchangeResult>;

export const exchangeContract: WorkflowContract<ExchangeWorkflow> = {
  workflowType: OPERATION_TYPES.exchange.workflowType,
  workflowId: (exchangeId) => operationWorkflowId('exchange', exchangeId),
};
