import type { EntityManager } from '@mikro-orm/postgresql';
import { PartnerPolicy } from '../entities/partner-policy.entity';
import { requirePartner } from './partner.service';

/** A partner's controls as they apply: defaults filled in. */
export interface EffectivePolicy {
  partnerId: string;
  allowlist: 'required' | 'off';
  coolingOffMinutes: number;
  /** Null: no limit. */
  dailyLimitEur: string | null;
}

/** What `ops partner set-policy` changes; an absent field keeps its value. `dailyLimitEur: null` removes the limit. */
export interface PolicyChange {
  allowlist?: 'required' | 'off';
  coolingOffMinutes?: number;
  dailyLimitEur?: string | null;
}

/** Sets the given controls of an existing partner (partner-not-found otherwise) and answers the policy that now applies. */
export async function setPartnerPolicy(
  em: EntityManager,
  partnerId: string,
  change: PolicyChange,
  defaultCoolingOffMinutes: number,
  now: Date,
): Promise<EffectivePolicy> {
  await requirePartner(em, partnerId);
  let policy = await em.findOne(PartnerPolicy, { partnerId });
  policy ??= em.create(PartnerPolicy, {
    partnerId,
    allowlistRequired: false,
    coolingOffMinutes: null,
    dailyLimitEur: null,
    updatedAt: now,
  });
  if (change.allowlist !== undefined) policy.allowlistRequired = change.allowlist === 'required';
  if (change.coolingOffMinutes !== undefined) policy.coolingOffMinutes = change.coolingOffMinutes;
  if (change.dailyLimitEur !== undefined) policy.dailyLimitEur = change.dailyLimitEur;
  policy.updatedAt = now;
  await em.flush();
  return {
    partnerId,
    allowlist: policy.allowlistRequired ? 'required' : 'off',
    coolingOffMinutes: policy.coolingOffMinutes ?? defaultCoolingOffMinutes,
    dailyLimitEur: policy.dailyLimitEur ?? null,
  };
}
