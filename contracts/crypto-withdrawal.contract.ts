import { defineUpdate } from '@temporalio/workflow';
import type { ReceiverType, WalletType } from '../core/counterparty';
import type { CryptoCurrency, Network } from '../core/currencies';
import type { OperationStatus } from '../core/operation-status';
import type { TravelRuleCompletion } from '../core/travel-rule-completion';
import type { OperationProgress, WorkflowContract } from './operation.contract';
import { OPERATION_TYPES, operationWorkflowId } from '../core/operation-types';

export type { TravelRuleCompletion } from '../core/travel-rule-completion';

export interface CryptoWithdrawalInput {
  withdrawalId: string;
  partnerId: string;
  /** The partner's user the withdrawal is made for; null when the partner withdraws. */
  userId: string | null;
  currency: CryptoCurrency;
  network: Network;
  amount: string;
  fee: string;
  destination: string;
  memo: string | null;
  walletType: WalletType;
  receiverType: ReceiverType;
  beneficiaryName: string;
  amountEur: string;
}

export type CryptoWithdrawalWorkflow = (input: CryptoWithdrawalInput) => Promise<OperationProgress>;

export const cryptoWithdrawalContract: WorkflowContract<CryptoWithdrawalWorkflow> = {
  workflowType: OPERATION_TYPES['crypto-withdrawal'].workflowType,
  workflowId: (withdrawalId) => operationWorkflowId('crypto-withdrawal', withdrawalId),
};

/**
 * Operators or a compliance tool complete a withdrawal's travel-rule data. Validated before it is
 * accepted: who completed it (required) and the IVMS101 beneficiary data; a bad payload is
 * rejected with the reason and leaves no trace in the history. Answers once recorded.
 */
export const completeTravelRuleUpdate = defineUpdate<{ withdrawalId: string; status: OperationStatus }, [TravelRuleCompletion]>(
  'completeTravelRule',
);
