import { EntitySchema } from '@mikro-orm/core';

export type OperatorActionOperationType = 'crypto-withdrawal' | 'sepa-transfer';
export type OperatorActionKind = 'release' | 'settle' | 'travel-rule-complete';

/** Audit trail: who did what to which operation, and why (`npm run ops -- operation resolve`, …). */
export class OperatorAction {
  id!: string;
  operationId!: string;
  operationType!: OperatorActionOperationType;
  action!: OperatorActionKind;
  /** The operator (or, for a travel-rule completion, whoever completed the data). */
  actor!: string;
  reason!: string;
  /** What the operation looked like when the action was taken; never personal data. */
  details?: Record<string, unknown> | null;
  createdAt!: Date;
}

export const OperatorActionSchema = new EntitySchema<OperatorAction>({
  class: OperatorAction,
  tableName: 'operator_action',
  properties: {
    id: { type: 'uuid', primary: true },
    operationId: { type: 'uuid', fieldName: 'operation_id' },
    operationType: { type: 'text', fieldName: 'operation_type' },
    action: { type: 'text' },
    actor: { type: 'text' },
    reason: { type: 'text' },
    details: { type: 'json', columnType: 'jsonb', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'created_at' },
  },
});
