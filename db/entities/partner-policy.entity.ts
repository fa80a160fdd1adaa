import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';
import { DecimalStringType } from '../types/decimal-string.type';

/** A partner's controls, set by operators; no row: the defaults. */
export const PartnerPolicy = defineEntity({
  name: 'PartnerPolicy',
  tableName: 'partner_policy',
  properties: {
    partnerId: p.uuid().primary().fieldName('partner_id'),
    allowlistRequired: p.boolean().default(false).fieldName('allowlist_required'),
    /** Null: the deployment's WITHDRAWAL_ADDRESS_COOLING_OFF_MINUTES. */
    coolingOffMinutes: p.integer().nullable().fieldName('cooling_off_minutes'),
    /** Null: no limit. */
    dailyLimitEur: p.type(new DecimalStringType(38, 2)).nullable().fieldName('daily_limit_eur'),
    updatedAt: p.datetime().columnType('timestamptz').defaultRaw('now()').fieldName('updated_at'),
  },
});
export type PartnerPolicy = InferEntity<typeof PartnerPolicy>;
