import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';

/** An operator action consumed by the workflow it was written for (a travel-rule completion), at most once; append-only. */
export const OperatorActionUse = defineEntity({
  name: 'OperatorActionUse',
  tableName: 'operator_action_use',
  properties: {
    actionId: p.uuid().primary().fieldName('action_id'),
    operationId: p.uuid().fieldName('operation_id'),
    usedAt: p.datetime().columnType('timestamptz').defaultRaw('now()').fieldName('used_at'),
  },
});
export type OperatorActionUse = InferEntity<typeof OperatorActionUse>;
