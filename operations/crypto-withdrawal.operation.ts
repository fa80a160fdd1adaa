import { cryptoWithdrawalContract } from '../contracts';
import { withdrawalAddressProblem } from '../core/address-validation';
import type { ReceiverType, WalletType } from '../core/counterparty';
import type { CryptoCurrency } from '../core/currencies';
import type { Network } from '../core/networks';
import { DomainError, assertInvariant } from '../core/errors';
import { Decimal } from '../core/money';
import { operationSearchAttributes } from '../core/search-attributes';
import { addressMatchingKey } from '../core/withdrawal-address-book';
import type { AcceptedWithdrawal } from '../db/queries/accepted-operation.queries';
import { findNetworkConfigCached } from '../db/queries/network-config.queries';
import { findUserIdByExternalId } from '../db/queries/partner-user.queries';
import type { OperationDependencies } from './dependencies';
import { refuseWithoutFunds } from './early-refusal';
import { startAndAwaitReservation } from './temporal/workflow-runner';
import { cryptoWithdrawalMetadata, partnerLabelOf } from './temporal/workflow-summary';

export interface CryptoWithdrawalRequest {
  partnerId: string;
  /** The same on every replay of an Idempotency-Key. */
  withdrawalId: string;
  currency: CryptoCurrency;
  network: Network;
  amount: string;
  walletAddress: string;
  memo: string | null;
  name: string;
  walletType: WalletType;
  receiverType: ReceiverType;
  /** Set when the partner withdraws on behalf of one of its users. */
  sourceExternalUserId: string | null;
}

/** Checked against current data, priced in EUR for the travel rule; returns once amount + fee are reserved. */
export async function withdrawCrypto(deps: OperationDependencies, request: CryptoWithdrawalRequest): Promise<{ withdrawalId: string }> {
  const { partnerId, withdrawalId } = request;
  // Read beside the checks: only the workflow's label in the Temporal UI needs it.
  const partnerLabel = partnerLabelOf(deps.pool, partnerId);
  const { fee } = await checkAgainstNetworkConfig(deps, request);
  const userId = request.sourceExternalUserId === null ? null : await userIdOf(deps, partnerId, request.sourceExternalUserId);
  const rates = await deps.rateSource.currentEurRates();
  const accepted: AcceptedWithdrawal = {
    user_id: userId,
    currency: request.currency,
    network: request.network,
    amount: request.amount,
    fee,
    destination: request.walletAddress,
    memo: request.memo,
    wallet_type: request.walletType,
    receiver_type: request.receiverType,
    beneficiary_name: request.name,
    amount_eur: new Decimal(request.amount).times(rates[request.currency]).toFixed(),
    address_key: addressMatchingKey(request.network, request.walletAddress),
  };
  const metadata = cryptoWithdrawalMetadata(withdrawalId, accepted, await partnerLabel);
  await startAndAwaitReservation(deps.temporal, {
    contract: cryptoWithdrawalContract,
    args: [{ withdrawalId, currency: request.currency, network: request.network }],
    searchAttributes: operationSearchAttributes(
      partnerId,
      userId === null ? 'crypto-withdrawal' : 'user-crypto-withdrawal',
      request.currency,
      metadata.plainSummary,
    ),
    metadata,
    operation: { type: 'crypto-withdrawal', id: withdrawalId, partnerId },
    request: accepted,
    refuseEarly: () =>
      refuseWithoutFunds(deps.pool, {
        kind: 'crypto-withdrawal',
        partnerId,
        currency: request.currency,
        held: new Decimal(request.amount).plus(fee).toFixed(),
      }),
  });
  return { withdrawalId };
}

/** Minimum amount and address format depend on the configured network (mainnet, testnet or regtest). */
async function checkAgainstNetworkConfig(deps: OperationDependencies, request: CryptoWithdrawalRequest): Promise<{ fee: string }> {
  const config = await findNetworkConfigCached(deps.pool, request.currency, request.network);
  assertInvariant(config, `network_config has ${request.currency}/${request.network}`);
  const problems: string[] = [];
  const minimum = new Decimal(config.min_withdrawal);
  if (new Decimal(request.amount).lt(minimum)) problems.push(`amount: the minimum withdrawal is ${minimum.toFixed()} ${request.currency}`);
  const addressProblem = withdrawalAddressProblem(request.currency, request.network, config.chain, request.walletAddress);
  if (addressProblem) problems.push(`walletAddress: ${addressProblem}`);
  if (problems.length > 0) throw new DomainError('invalid-currency', problems.join('\n'));
  return { fee: new Decimal(config.fee_withdrawal).toFixed() };
}

/** The spec's `networkFee`/`feeWithdrawal`: quoted and charged from the same per-process read, so they agree. */
export async function withdrawalFee(
  deps: Pick<OperationDependencies, 'pool'>,
  currency: CryptoCurrency,
  network: Network,
): Promise<string> {
  const config = await findNetworkConfigCached(deps.pool, currency, network);
  assertInvariant(config, `network_config has ${currency}/${network}`);
  return new Decimal(config.fee_withdrawal).toFixed();
}

/** The primary, not a replica: a user registered a moment ago must be found. */
async function userIdOf(deps: OperationDependencies, partnerId: string, externalUserId: string): Promise<string> {
  const userId = await findUserIdByExternalId(deps.pool, partnerId, externalUserId);
  if (!userId) throw new DomainError('invalid-user', `no user with external id ${externalUserId}`);
  return userId;
}
