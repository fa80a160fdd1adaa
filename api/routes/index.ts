import { addWithdrawalAddressRoute } from './add-withdrawal-address.route';
import { balancesRoute } from './balances.route';
import { deleteWithdrawalAddressRoute } from './delete-withdrawal-address.route';
import { exchangeRoute } from './exchange.route';
import { listWithdrawalAddressesRoute } from './list-withdrawal-addresses.route';
import { networkFeeRoute } from './network-fee.route';
import { partnerCryptoWithdrawalRoute } from './partner-crypto-withdrawal.route';
import { rateLockRoute } from './rate-lock.route';
import type { Route } from './route';
import { sepaTransferRoute } from './sepa-transfer.route';
import { transactionHistoryRoute } from './transaction-history.route';
import { userCryptoWithdrawalRoute } from './user-crypto-withdrawal.route';
import { withdrawalDetailsRoute } from './withdrawal-details.route';

/**
 * The partner API, one definition per route: api/app.ts registers these and the OpenAPI document
 * describes them, in this order. A new route is its own `<name>.route.ts` and one line here.
 * (Health, /docs and /v1/openapi.json are not part of it: app.ts registers those itself.)
 */
export const ROUTES: readonly Route[] = [
  balancesRoute,
  transactionHistoryRoute,
  rateLockRoute,
  exchangeRoute,
  partnerCryptoWithdrawalRoute,
  sepaTransferRoute,
  networkFeeRoute,
  userCryptoWithdrawalRoute,
  withdrawalDetailsRoute,
  listWithdrawalAddressesRoute,
  addWithdrawalAddressRoute,
  deleteWithdrawalAddressRoute,
];
