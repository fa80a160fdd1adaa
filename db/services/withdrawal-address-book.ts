import type { EntityManager } from '@mikro-orm/postgresql';
import type { Network } from '../../core/currencies';
import { DomainError } from '../../core/errors';
import { addressMatchingKey } from '../../core/withdrawal-address-book';

/** The withdrawal a reservation is about to hold money for. */
export interface AllowlistedDestination {
  partnerId: string;
  currency: string;
  network: Network;
  destination: string;
}

/**
 * The allowlist rule, in the reservation's transaction and before anything is held: when the
 * partner's policy requires it, the destination must be an ACTIVE, live entry of its
 * withdrawal-address book for the currency and network; else a refusal, `address-not-allowlisted`.
 * The entry is locked FOR SHARE, so a deletion committing meanwhile either waits for this
 * reservation or is seen by it: a deleted entry never lets a withdrawal through. The message
 * names no address (it is kept in the workflow's result, in clear).
 */
export async function assertAllowlisted(
  em: EntityManager,
  withdrawal: AllowlistedDestination,
  now: Date,
  /** What the partner's policy says, read in the same transaction (lockReservationFacts). */
  allowlistRequired: boolean,
): Promise<void> {
  if (!allowlistRequired) return;
  // MikroORM's connection hands timestamps over as text: compared and written by Postgres.
  const [entry] = await em.execute<Array<{ active: boolean; active_from: string }>>(
    `select active_from <= ? as active, to_char(active_from at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as active_from
       from withdrawal_address
      where partner_id = ? and currency = ? and network = ? and address_key = ? and deleted_at is null
      for share`,
    [now, withdrawal.partnerId, withdrawal.currency, withdrawal.network, addressMatchingKey(withdrawal.network, withdrawal.destination)],
  );
  if (entry?.active) return;
  const book = `the withdrawal-address book (${withdrawal.currency} on ${withdrawal.network})`;
  throw new DomainError(
    'address-not-allowlisted',
    entry
      ? `walletAddress is in ${book} but PENDING until ${entry.active_from} (its cooling-off)`
      : `walletAddress is not an ACTIVE entry of ${book}, and this partner's policy requires one`,
  );
}
