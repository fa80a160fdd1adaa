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

/** The partner API, registered by app.ts and documented in this order; health, /docs and openapi.json are app.ts's own. */
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
