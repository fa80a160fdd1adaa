import { addAddressToBook } from '../../operations/withdrawal-address-book.operation';
import type { ApiDependencies } from '../dependencies';
import { respond } from '../http/respond';
import { performIdempotently } from '../idempotency/idempotency';
import { WITHDRAWAL_ADDRESS_EXAMPLE, withdrawalAddressBodySchema, withdrawalAddressSchema } from '../schemas/withdrawal-address.schema';
import { parseOrThrow } from '../schemas/validation';
import type { ApiContext } from '../state';
import type { Route } from './route';
import { ADDRESS_BOOK_PATH, withdrawalAddressBody } from './withdrawal-address.shared';

/** POST /v1/partner/withdrawal-addresses: 201 with a new PENDING entry; 200 with the entry, unchanged, if already in the book. */
export const addWithdrawalAddressRoute: Route = {
  method: 'post',
  path: ADDRESS_BOOK_PATH,
  authenticated: true,
  docs: {
    operationId: 'addWithdrawalAddress',
    tag: 'Withdrawal address book',
    summary: 'Add an address to the withdrawal-address book',
    description:
      "Checks the address as a withdrawal's destination is checked (format and checksum for the network, mainnet or testnet as configured) and adds it, PENDING until activeFrom: now plus the partner's cooling-off (24 hours unless operators set another; with none it is ACTIVE at once). The book holds at most 100 addresses. An address already in the book for that currency and network (compared without regard to case for ethereum, polygon and bech32 addresses) answers 200 with that entry, unchanged. Every new entry is sent as the withdrawal_address.created webhook.",
    errors: [],
  },
  request: {
    body: {
      schema: withdrawalAddressBodySchema,
      examples: {
        usdcOnPolygon: {
          summary: 'A USDC address on polygon',
          value: {
            currency: 'usdc',
            network: 'POLYGON',
            address: WITHDRAWAL_ADDRESS_EXAMPLE.address,
            label: WITHDRAWAL_ADDRESS_EXAMPLE.label,
          },
        },
        btc: {
          summary: 'A bitcoin address',
          value: { currency: 'btc', address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', label: 'Exchange deposit' },
        },
      },
    },
  },
  response: {
    status: 201,
    description: 'Added: PENDING until activeFrom, then ACTIVE.',
    body: withdrawalAddressSchema,
    examples: { added: { summary: 'In its cooling-off', value: WITHDRAWAL_ADDRESS_EXAMPLE } },
    alternative: {
      status: 200,
      description: 'The address was in the book already: its entry, unchanged.',
      examples: { existing: { summary: 'Active since its cooling-off ended', value: { ...WITHDRAWAL_ADDRESS_EXAMPLE, status: 'ACTIVE' } } },
    },
  },
  handler: addWithdrawalAddressHandler,
};

function addWithdrawalAddressHandler(deps: ApiDependencies) {
  return async (ctx: ApiContext): Promise<void> => {
    const body = parseOrThrow(withdrawalAddressBodySchema, ctx.state.body, 'invalid-request');
    const { partnerId } = ctx.state;
    const answer = await performIdempotently(deps.pool, {
      partnerId,
      operation: `${ctx.method} ${String(ctx._matchedRoute ?? ctx.path)}`,
      key: ctx.get('idempotency-key') || undefined,
      body: ctx.state.body,
      perform: async (entryId) => {
        const book = { pool: deps.pool, clock: deps.clock, defaultCoolingOffMinutes: deps.withdrawalAddressCoolingOffMinutes };
        const { created, entry } = await addAddressToBook(book, { ...body, partnerId, entryId });
        return { status: created ? 201 : 200, body: withdrawalAddressBody(entry, deps.clock.now()) };
      },
    });
    if (answer.replayed) ctx.set('Idempotent-Replayed', 'true');
    respond(ctx, answer.status, answer.body);
  };
}
