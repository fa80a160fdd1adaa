import { withdrawalAddressProblem } from '../core/address-validation';
import type { CryptoCurrency } from '../core/currencies';
import type { Network } from '../core/networks';
import { DomainError, assertInvariant } from '../core/errors';
import { WITHDRAWAL_ADDRESS_BOOK_LIMITS, addressMatchingKey } from '../core/withdrawal-address-book';
import { findNetworkConfig } from '../db/queries/network-config.queries';
import { addWithdrawalAddress, deleteWithdrawalAddress } from '../db/queries/withdrawal-address.queries';
import type { WithdrawalAddressRow } from '../db/queries/withdrawal-address.queries';
import type { OperationDependencies } from './dependencies';

/** What the address book needs: the primary (checks and writes), the clock, and the deployment's default cooling-off. */
export type AddressBookDependencies = Pick<OperationDependencies, 'pool' | 'clock'> & {
  /** WITHDRAWAL_ADDRESS_COOLING_OFF_MINUTES, for partners whose policy sets none. */
  defaultCoolingOffMinutes: number;
};

export interface WithdrawalAddressRequest {
  partnerId: string;
  /** The new entry's id: the same on every replay of an Idempotency-Key. */
  entryId: string;
  currency: CryptoCurrency;
  network: Network;
  address: string;
  label: string;
}

/**
 * Adds an address to the partner's book, checked as a withdrawal's destination is. `created: false`: the live entry
 * existed and is answered unchanged, so a repeated request never restarts or shortens its cooling-off.
 */
export async function addAddressToBook(
  deps: AddressBookDependencies,
  request: WithdrawalAddressRequest,
): Promise<{ created: boolean; entry: WithdrawalAddressRow }> {
  const config = await findNetworkConfig(deps.pool, request.currency, request.network);
  assertInvariant(config, `network_config has ${request.currency}/${request.network}`);
  const problem = withdrawalAddressProblem(request.currency, request.network, config.chain, request.address, 'address');
  if (problem) throw new DomainError('invalid-request', `address: ${problem}`);
  const { entriesPerPartner } = WITHDRAWAL_ADDRESS_BOOK_LIMITS;
  const outcome = await addWithdrawalAddress(deps.pool, {
    id: request.entryId,
    partnerId: request.partnerId,
    currency: request.currency,
    network: request.network,
    address: request.address,
    addressKey: addressMatchingKey(request.network, request.address),
    label: request.label,
    createdAt: deps.clock.now(),
    defaultCoolingOffMinutes: deps.defaultCoolingOffMinutes,
    maxEntries: entriesPerPartner,
  });
  if ('full' in outcome) {
    throw new DomainError(
      'invalid-request',
      `the withdrawal-address book holds at most ${entriesPerPartner} addresses: delete one before adding another`,
    );
  }
  return outcome;
}

/** Deletes one of the partner's live entries; anything else (unknown, deleted, another partner's) is not found. */
export async function deleteAddressFromBook(
  deps: Pick<OperationDependencies, 'pool' | 'clock'>,
  partnerId: string,
  entryId: string,
): Promise<void> {
  if (!(await deleteWithdrawalAddress(deps.pool, partnerId, entryId, deps.clock.now()))) {
    throw new DomainError('withdrawal-address-not-found', 'no such withdrawal address');
  }
}
