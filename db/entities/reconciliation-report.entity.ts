import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';

/** What one reconciliation run found; kept so operators can see when an invariant first broke. */
export const ReconciliationReport = defineEntity({
  name: 'ReconciliationReport',
  tableName: 'reconciliation_report',
  properties: {
    id: p.uuid().primary(),
    createdAt: p.datetime().columnType('timestamptz').defaultRaw('now()').fieldName('created_at'),
    ok: p.boolean(),
    report: p.json<Record<string, unknown>>().columnType('jsonb'),
  },
});
export type ReconciliationReport = InferEntity<typeof ReconciliationReport>;
