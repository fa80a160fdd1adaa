import type pg from 'pg';
import { inPgTransaction } from '../pg-transaction';

export interface WithdrawalAddressRow {
  id: string;
  currency: string;
  network: string;
  address: string;
  label: string;
  active_from: Date;
  created_at: Date;
}

export interface NewWithdrawalAddress {
  id: string;
  partnerId: string;
  currency: string;
  network: string;
  address: string;
  /** core/withdrawal-address-book.ts, addressMatchingKey. */
  addressKey: string;
  label: string;
  createdAt: Date;
  /** WITHDRAWAL_ADDRESS_COOLING_OFF_MINUTES: the cooling-off of a partner whose policy sets none. */
  defaultCoolingOffMinutes: number;
  /** Live entries a partner may have. */
  maxEntries: number;
}

export type AddOutcome = { created: boolean; entry: WithdrawalAddressRow } | { full: true };

const COLUMNS = 'id, currency, network, address, label, active_from, created_at';

/**
 * Adds an entry under a lock of the partner's book: the entry with this id or the live one for the address is answered
 * as it is (`created: false`); else, below the cap, the new entry, active after the partner's cooling-off.
 */
export async function addWithdrawalAddress(pool: pg.Pool, entry: NewWithdrawalAddress): Promise<AddOutcome> {
  return inPgTransaction(pool, async (client) => {
    // Its own key space: advisory locks on operation ids (db/ledger/ledger.ts) hash bare uuids.
    await client.query(`select pg_advisory_xact_lock(hashtextextended('withdrawal-address-book:' || $1, 0))`, [entry.partnerId]);
    const existing = await client.query<WithdrawalAddressRow>(
      `select ${COLUMNS} from withdrawal_address
        where partner_id = $1 and (id = $2 or (currency = $3 and network = $4 and address_key = $5 and deleted_at is null))
        order by (id = $2) desc limit 1`,
      [entry.partnerId, entry.id, entry.currency, entry.network, entry.addressKey],
    );
    if (existing.rows[0]) return { created: false, entry: existing.rows[0] };
    const live = await client.query<{ entries: number }>(
      'select count(*)::int as entries from withdrawal_address where partner_id = $1 and deleted_at is null',
      [entry.partnerId],
    );
    if ((live.rows[0]?.entries ?? 0) >= entry.maxEntries) return { full: true };
    const inserted = await client.query<WithdrawalAddressRow>(
      `insert into withdrawal_address (id, partner_id, currency, network, address, address_key, label, active_from, created_at)
       select $1, $2, $3, $4, $5, $6, $7,
              $8::timestamptz + make_interval(mins => coalesce(
                (select cooling_off_minutes from partner_policy where partner_id = $2), $9::int)),
              $8
       returning ${COLUMNS}`,
      [
        entry.id,
        entry.partnerId,
        entry.currency,
        entry.network,
        entry.address,
        entry.addressKey,
        entry.label,
        entry.createdAt,
        entry.defaultCoolingOffMinutes,
      ],
    );
    return { created: true, entry: inserted.rows[0]! };
  });
}

/** The partner's live entries, newest first (at most the cap, so one page). */
export async function findWithdrawalAddresses(pool: pg.Pool, partnerId: string): Promise<WithdrawalAddressRow[]> {
  const result = await pool.query<WithdrawalAddressRow>(
    `select ${COLUMNS} from withdrawal_address where partner_id = $1 and deleted_at is null order by created_at desc, id desc`,
    [partnerId],
  );
  return result.rows;
}

/** Marks the partner's live entry deleted; false when there is none with this id (unknown, deleted, another partner's). */
export async function deleteWithdrawalAddress(pool: pg.Pool, partnerId: string, id: string, deletedAt: Date): Promise<boolean> {
  const result = await pool.query(
    'update withdrawal_address set deleted_at = $3 where id = $1 and partner_id = $2 and deleted_at is null',
    [id, partnerId, deletedAt],
  );
  return result.rowCount === 1;
}
