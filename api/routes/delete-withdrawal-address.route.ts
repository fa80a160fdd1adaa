import { z } from 'zod';
import { deleteAddressFromBook } from '../../operations/withdrawal-address-book.operation';
import { DomainError } from '../../core/errors';
import type { ApiDependencies } from '../dependencies';
import type { ApiContext } from '../state';
import type { Route } from './route';
import { ADDRESS_BOOK_PATH } from './withdrawal-address.shared';

const entryId = z.uuid();

/** DELETE /v1/partner/withdrawal-addresses/:id: 204; unknown, deleted and foreign ids (and ids that are no UUID) are all 404 P404. */
export const deleteWithdrawalAddressRoute: Route = {
  method: 'delete',
  path: `${ADDRESS_BOOK_PATH}/:id`,
  authenticated: true,
  docs: {
    operationId: 'deleteWithdrawalAddress',
    tag: 'Withdrawal address book',
    summary: 'Delete an address from the withdrawal-address book',
    description:
      'Withdrawals to it are refused from now on when the allowlist is required; adding it again makes a new entry with a new cooling-off. The deletion is sent as the withdrawal_address.deleted webhook.',
    errors: ['withdrawal-address-not-found'],
  },
  request: {
    // Any text: what names no entry of this partner's is not found, not malformed (as the withdrawal details do).
    params: z.object({
      id: z.string().meta({
        description: "The entry's id. Anything that names no live entry of this partner's is 404 P404.",
        examples: ['3f6c2a1e-8b4d-4e7f-9a0b-5c1d2e3f4a5b'],
      }),
    }),
  },
  response: { status: 204, description: 'Deleted.' },
  handler: deleteWithdrawalAddressHandler,
};

function deleteWithdrawalAddressHandler(deps: ApiDependencies) {
  return async (ctx: ApiContext): Promise<void> => {
    const id = entryId.safeParse(ctx.params.id);
    if (!id.success) throw new DomainError('withdrawal-address-not-found', 'no such withdrawal address');
    await deleteAddressFromBook(deps, ctx.state.partnerId, id.data);
    ctx.status = 204;
  };
}
