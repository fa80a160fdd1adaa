import { withdrawalAddressStatus } from '../../core/withdrawal-address-book';
import type { WithdrawalAddressRow } from '../../db/queries/withdrawal-address.queries';

/** What the address-book routes share: an entry as they answer it, its status as of `now`. */
export function withdrawalAddressBody(row: WithdrawalAddressRow, now: Date) {
  return {
    id: row.id,
    currency: row.currency,
    network: row.network,
    address: row.address,
    label: row.label,
    status: withdrawalAddressStatus(row.active_from, now),
    activeFrom: row.active_from.toISOString(),
    createdAt: row.created_at.toISOString(),
  };
}

export const ADDRESS_BOOK_PATH = '/v1/partner/withdrawal-addresses';
