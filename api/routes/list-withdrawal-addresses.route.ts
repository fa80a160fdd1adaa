import { z } from 'zod';
import { findWithdrawalAddresses } from '../../db/queries/withdrawal-address.queries';
import type { ApiDependencies } from '../dependencies';
import { respond } from '../http/respond';
import { WITHDRAWAL_ADDRESS_EXAMPLE, withdrawalAddressSchema } from '../schemas/withdrawal-address.schema';
import type { ApiContext } from '../state';
import type { Route } from './route';
import { ADDRESS_BOOK_PATH, withdrawalAddressBody } from './withdrawal-address.shared';

/** GET /v1/partner/withdrawal-addresses: the partner's entries, deleted ones left out, newest first. */
export const listWithdrawalAddressesRoute: Route = {
  method: 'get',
  path: ADDRESS_BOOK_PATH,
  authenticated: true,
  docs: {
    operationId: 'listWithdrawalAddresses',
    tag: 'Withdrawal address book',
    summary: 'The withdrawal-address book',
    description:
      'Every address in the book (at most 100, so one page), newest first, each with its status as of now; deleted ones are left out.',
    errors: [],
  },
  request: {},
  response: {
    status: 200,
    description: 'The book.',
    body: z
      .strictObject({ withdrawalAddresses: z.array(withdrawalAddressSchema).meta({ description: 'Newest first.' }) })
      .meta({ id: 'WithdrawalAddressBook' }),
    examples: { book: { summary: 'One address, in its cooling-off', value: { withdrawalAddresses: [WITHDRAWAL_ADDRESS_EXAMPLE] } } },
  },
  handler: listWithdrawalAddressesHandler,
};

function listWithdrawalAddressesHandler(deps: ApiDependencies) {
  return async (ctx: ApiContext): Promise<void> => {
    // The primary, not a replica: a partner checking that an address it just deleted is gone must not see it (100 rows at most).
    const rows = await findWithdrawalAddresses(deps.pool, ctx.state.partnerId);
    const now = deps.clock.now();
    respond(ctx, listWithdrawalAddressesRoute.response.status, { withdrawalAddresses: rows.map((row) => withdrawalAddressBody(row, now)) });
  };
}
