import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../../core/errors';
import { Decimal } from '../../core/money';
import { rollingDayStart } from '../../core/rolling-day';

export interface DailyLimitCheck {
  partnerId: string;
  /** The partner's limit as lockReservationFacts read it (its policy row locked), or null when it has none. */
  limitEur: string | null;
  /** What this operation adds: a withdrawal's amount at the rates of its acceptance (fee excluded), a SEPA transfer's amount. */
  amountEur: string;
  /** The reserving activity's clock: the window is the 24 hours before it. */
  now: Date;
}

/**
 * Refuses (limit-exceeded, saying what is left) an operation that would take its partner past the
 * rolling 24-hour EUR limit of its policy (`ops partner set-policy --daily-limit-eur`): the EUR
 * amounts of the partner's crypto withdrawals (its own and its users') and SEPA transfers created
 * in the last 24 hours and not UNSUCCESSFUL (refused ones have no row; released ones give their
 * share back), plus this one. Exactly the limit passes.
 *
 * Runs in the reservation's transaction, after its ledger hold (an operation given up on, or short
 * of funds, is refused as such first) and before its record is stored, so a re-run of a
 * reservation that committed returns earlier and is never refused for its own share. The sum is a
 * statement that starts after lockReservationFacts's lock was granted (READ COMMITTED), so it sees what
 * the reservation before it committed, and concurrent requests cannot pass the limit together.
 */
export async function assertWithinDailyLimit(em: EntityManager, check: DailyLimitCheck): Promise<void> {
  if (check.limitEur === null) return;
  const since = rollingDayStart(check.now);
  // Served by its partial indexes.
  const [sum] = await em.execute<{ used_eur: string }[]>(
    `select (coalesce((select sum(amount_eur) from crypto_withdrawal
                        where partner_id = ? and created_at > ? and status <> 'UNSUCCESSFUL'), 0)
           + coalesce((select sum(amount) from sepa_transfer
                        where partner_id = ? and created_at > ? and status <> 'UNSUCCESSFUL'), 0))::text as used_eur`,
    [check.partnerId, since, check.partnerId, since],
  );
  const limit = new Decimal(check.limitEur);
  const used = new Decimal(sum?.used_eur ?? '0');
  if (used.plus(check.amountEur).lte(limit)) return;
  // Rounded down: never more than is really left.
  const left = Decimal.max(0, limit.minus(used)).toFixed(2, Decimal.ROUND_DOWN);
  throw new DomainError('limit-exceeded', `${left} EUR left in the last 24 h`);
}
