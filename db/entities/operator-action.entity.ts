import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';

export type OperatorActionOperationType = 'crypto-withdrawal' | 'sepa-transfer';
export type OperatorActionKind = 'release' | 'settle' | 'travel-rule-complete';

/** Audit trail: who did what to which operation, and why (`npm run ops -- operation resolve`, …). */
export const OperatorAction = defineEntity({
  name: 'OperatorAction',
  tableName: 'operator_action',
  properties: {
    id: p.uuid().primary(),
    operationId: p.uuid().fieldName('operation_id'),
    operationType: p.enum(['crypto-withdrawal', 'sepa-transfer'] satisfies OperatorActionOperationType[]).fieldName('operation_type'),
    action: p.enum(['release', 'settle', 'travel-rule-complete'] satisfies OperatorActionKind[]),
    /** The operator (or, for a travel-rule completion, whoever completed the data). */
    actor: p.text(),
    reason: p.text(),
    /** What the operation looked like when the action was taken; never personal data. */
    details: p.json<Record<string, unknown>>().columnType('jsonb').nullable(),
    createdAt: p.datetime().columnType('timestamptz').defaultRaw('now()').fieldName('created_at'),
  },
});
export type OperatorAction = InferEntity<typeof OperatorAction>;
