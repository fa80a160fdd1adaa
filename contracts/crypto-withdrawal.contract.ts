import { defineUpdate } from '@temporalio/workflow';
import type { CryptoCurrency } from '../core/currencies';
import type { Network } from '../core/networks';
import type { OperationStatus } from '../core/operation-status';
import type { TravelRuleCompletion } from '../core/travel-rule-completion';
import type { OperationProgress, WorkflowContract } from './operation.contract';
import { OPERATION_TYPES, operationWorkflowId } from '../core/operation-types';

export type { TravelRuleCompletion } from '../core/travel-rule-completion';

/** The withdrawal's id (its first step reads what the API accepted), and where it goes for the Temporal UI. */
export interface CryptoWithdrawalInput {
  withdrawalId: string;
  currency: CryptoCurrency;
  network: Network;
}

export type CryptoWithdrawalWorkflow = (input: CryptoWithdrawalInput) => Promise<OperationProgress>;

export const cryptoWithdrawalContract: WorkflowContract<CryptoWithdrawalWorkflow> = {
  workflowType: OPERATION_TYPES['crypto-withdrawal'].workflowType,
  workflowId: (withdrawalId) => operationWorkflowId('crypto-withdrawal', withdrawalId),
};

/** Operators or a compliance tool complete a withdrawal's travel-rule data; validated first, so a bad payload leaves no history. */
export const completeTravelRuleUpdate = defineUpdate<{ withdrawalId: string; status: OperationStatus }, [TravelRuleCompletion]>(
  'completeTravelRule',
);
