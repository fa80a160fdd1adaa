import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { rollingDayStart } from '../../core/rolling-day';

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

/**
 * The EUR sum (amount_eur) of a partner's crypto withdrawals, its own and its users', to one
 * destination created since 24 hours before `createdAt` (this withdrawal's), UNSUCCESSFUL ones left
 * out, this one and any created after it included. No upper bound: withdrawals commit in another
 * order than their clocks read, so of two reserved in parallel the one checked later must see the
 * other whichever was created first (else each could miss the other and both pass). What
 * the travel-rule threshold is compared with, besides each withdrawal's own value. The same
 * destination is the same address in any letter case (an EVM address checksummed or in lower case
 * is one), on any network and in any currency. Read in the caller's transaction.
 */
export async function sumWithdrawnToDestinationEur(
  em: EntityManager,
  query: { partnerId: string; destination: string; createdAt: Date },
): Promise<string> {
  // Served by crypto_withdrawal_destination_sum_idx (Migration20261125103000_partner_limit_sums).
  const [row] = await em.execute<{ total_eur: string }[]>(
    `select coalesce(sum(amount_eur), 0)::text as total_eur from crypto_withdrawal
      where partner_id = ? and lower(destination) = lower(?) and created_at > ? and status <> 'UNSUCCESSFUL'`,
    [query.partnerId, query.destination, rollingDayStart(query.createdAt)],
  );
  return row?.total_eur ?? '0';
}
