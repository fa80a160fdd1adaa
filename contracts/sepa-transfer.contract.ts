import type { OperationProgress, WorkflowContract } from './operation.contract';
import { OPERATION_TYPES, operationWorkflowId } from '../core/operation-types';

/** The transfer's id: its first step reads what the API accepted. */
export interface SepaTransferInput {
  transferId: string;
}

export type SepaTransferWorkflow = (input: SepaTransferInput) => Promise<OperationProgress>;

export const sepaTransferContract: WorkflowContract<SepaTransferWorkflow> = {
  workflowType: OPERATION_TYPES['sepa-transfer'].workflowType,
  workflowId: (transferId) => operationWorkflowId('sepa-transfer', transferId),
};
