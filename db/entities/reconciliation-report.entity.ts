import { EntitySchema } from '@mikro-orm/core';

/** What one reconciliation run found; kept so operators can see when an invariant first broke. */
export class ReconciliationReport {
  id!: string;
  createdAt!: Date;
  ok!: boolean;
  report!: Record<string, unknown>;
}

export const ReconciliationReportSchema = new EntitySchema<ReconciliationReport>({
  class: ReconciliationReport,
  tableName: 'reconciliation_report',
  properties: {
    id: { type: 'uuid', primary: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'created_at' },
    ok: { type: 'boolean' },
    report: { type: 'json', columnType: 'jsonb' },
  },
});
