import type { ReceiverType } from '../core/counterparty';
import type { OperationProgress, WorkflowContract } from './operation.contract';
import { OPERATION_TYPES, operationWorkflowId } from '../core/operation-types';

export interface SepaTransferInput {
  transferId: string;
  partnerId: string;
  amount: string;
  receiverType: ReceiverType;
  receiverFirstName: string | null;
  receiverLastName: string | null;
  companyName: string | null;
  destinationIban: string;
  transferTitle: string;
}

export type SepaTransferWorkflow = (input: SepaTransferInput) => Promise<OperationProgress>;

export const sepaTransferContract: WorkflowContract<SepaTransferWorkflow> = {
  workflowType: OPERATION_TYPES['sepa-transfer'].workflowType,
  workflowId: (transferId) => operationWorkflowId('sepa-transfer', transferId),
};
