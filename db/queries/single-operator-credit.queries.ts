import type { EntityManager } from '@mikro-orm/postgresql';

/** What one operator credited alone (no second operator approved it) in the 24 hours before now, in EUR. */
export interface CreditsAlone {
  byOperator: string;
  toPartner: string;
}

/**
 * From the audit trail (append-only, written with each credit): manual deposits posted at once (`deposit`, its EUR value)
 * and incoming credits assigned at once (`bank-assign`, EUR); what a second operator approved is not counted. Takes a
 * lock held to the end of the caller's transaction, so two credits at once cannot both pass under the threshold.
 */
export async function creditsAloneLately(em: EntityManager, actor: string, partnerId: string, now: Date): Promise<CreditsAlone> {
  await em.execute(`select pg_advisory_xact_lock(hashtextextended('single-operator-credit', 0))`);
  const [row] = await em.execute<Array<{ by_operator: string; to_partner: string }>>(
    `select coalesce(sum(value) filter (where lower(trim(actor)) = lower(trim(?))), 0)::text as by_operator,
            coalesce(sum(value) filter (where partner_id = ?), 0)::text as to_partner
       from (select actor, partner_id,
                    case action when 'deposit' then (details->>'amountEur')::numeric
                                else (details->>'amount')::numeric end as value
               from operator_action
              where action in ('deposit', 'bank-assign') and created_at > ?::timestamptz - interval '24 hours') alone`,
    [actor, partnerId, now],
  );
  return { byOperator: row?.by_operator ?? '0', toPartner: row?.to_partner ?? '0' };
}
