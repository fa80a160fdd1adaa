import type pg from 'pg';
import { ROLLING_DAY_MS } from '../../core/rolling-day';

export interface WithdrawalDetailsRow {
  id: string;
  amount: string;
  fee: string;
  destination: string;
  status: string;
  transaction_hash: string | null;
  currency: string;
  network: string;
  created_at: Date;
  external_user_id: string | null;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  address: string | null;
  city: string | null;
  country: string | null;
  document_type: string | null;
  document_number: string | null;
  pesel: string | null;
  birth_country: string | null;
  birth_date: string | null;
}

/** Scoped to the partner: another partner's withdrawal is simply not found. */
export async function findWithdrawalDetails(
  pool: pg.Pool,
  partnerId: string,
  withdrawalId: string,
): Promise<WithdrawalDetailsRow | undefined> {
  const result = await pool.query<WithdrawalDetailsRow>(
    `select w.id, w.amount::text, w.fee::text, w.destination, w.status, w.transaction_hash, w.currency, w.network, w.created_at,
            u.external_user_id, u.email, u.first_name, u.last_name, u.address, u.city, u.country,
            u.document_type, u.document_number, u.pesel, u.birth_country, u.birth_date::text
       from crypto_withdrawal w left join partner_user u on u.id = w.user_id
      where w.partner_id = $1 and w.id = $2`,
    [partnerId, withdrawalId],
  );
  return result.rows[0];
}

/** The originator's columns of a withdrawal made for a partner's user, as findTravelRuleFacts reads them. */
export interface TravelRuleUserRow {
  external_user_id: string;
  first_name: string;
  last_name: string;
  address: string;
  city: string;
  country: string;
  document_type: string;
  document_number: string;
  birth_date: string | null;
  birth_country: string | null;
}

export interface TravelRuleFacts {
  /** The withdrawal's own columns, for EntityManager.map. */
  row: Record<string, unknown>;
  /** Its partner's name (null: no such partner). */
  partnerName: string | null;
  /** Its user, when it was made for one and the user exists. */
  user: TravelRuleUserRow | null;
  /**
   * The EUR sum of the partner's withdrawals (its users' too) to this destination, in any letter case, network or
   * currency, created since 24 hours before this one, not UNSUCCESSFUL. No upper bound: withdrawals commit out of clock
   * order, so of two reserved in parallel the one checked later must see the other (else both could pass).
   */
  destinationEurLast24h: string;
}

/** What the travel-rule check reads, in one statement: the withdrawal, its originator and its destination's 24-hour sum. */
export async function findTravelRuleFacts(pool: pg.Pool, withdrawalId: string): Promise<TravelRuleFacts | undefined> {
  // Served by crypto_withdrawal_destination_sum_idx; the window counts to the millisecond, as rollingDayStart does.
  const { rows } = await pool.query<Record<string, unknown>>(
    `select w.*, p.name as tr_partner_name, to_jsonb(u) - 'pesel' - 'email' as tr_user,
            (select coalesce(sum(s.amount_eur), 0)::text from crypto_withdrawal s
              where s.partner_id = w.partner_id and lower(s.destination) = lower(w.destination)
                and s.created_at > date_trunc('milliseconds', w.created_at) - $1 * interval '1 millisecond'
                and s.status <> 'UNSUCCESSFUL') as tr_destination_eur_last24h
       from crypto_withdrawal w
       left join partner p on p.id = w.partner_id
       left join partner_user u on u.id = w.user_id
      where w.id = $2`,
    [ROLLING_DAY_MS, withdrawalId],
  );
  const found = rows[0];
  if (!found) return undefined;
  const { tr_partner_name: partnerName, tr_user: user, tr_destination_eur_last24h: sum, ...row } = found;
  return {
    row,
    partnerName: (partnerName as string | null) ?? null,
    user: (user as TravelRuleUserRow | null) ?? null,
    destinationEurLast24h: (sum as string | null) ?? '0',
  };
}

/** Merges the travel-rule check's data into travel_rule while the withdrawal is open and not handed off (else false). */
export async function storeTravelRuleDataBeforeHandOff(
  pool: pg.Pool,
  change: { id: string; data: Record<string, unknown>; now: Date },
): Promise<boolean> {
  const { rowCount } = await pool.query(
    `update crypto_withdrawal set travel_rule = coalesce(travel_rule, '{}'::jsonb) || $1::jsonb, updated_at = $2
      where id = $3 and handed_off_at is null and transaction_hash is null and status not in ('SUCCESSFUL', 'UNSUCCESSFUL')
      returning id`,
    [JSON.stringify(change.data), change.now, change.id],
  );
  return rowCount === 1;
}
