import type { Context } from 'koa';
import type { CryptoWithdrawalInput } from '../../activities/crypto-withdrawal.activities';
import { withdrawalAddressProblem } from '../../core/address-validation';
import { DomainError, assertInvariant } from '../../core/errors';
import { Decimal } from '../../core/money';
import { operationSearchAttributes } from '../../core/search-attributes';
import { findNetworkConfig } from '../../db/queries/balances.queries';
import { findUserIdByExternalId } from '../../db/queries/crypto-withdrawal.queries';
import { workflowIds } from '../../workflows/definitions';
import type { ApiDependencies } from '../dependencies';
import { performIdempotently } from '../idempotency/idempotency';
import { respondJson } from '../http/respond';
import { partnerCryptoWithdrawalBodySchema, userCryptoWithdrawalBodySchema } from '../schemas/crypto-withdrawal.schema';
import type { CryptoWithdrawalBody } from '../schemas/crypto-withdrawal.schema';
import { parseOrThrow } from '../schemas/validation';
import { startAndAwaitReservation } from '../temporal/workflow-runner';

/**
 * POST /v1/partner/crypto-withdrawal and POST /v1/crypto-withdrawal (on behalf of a user):
 * 200 with withdrawalId as soon as amount + fee are reserved; the chain is never awaited.
 */
export function cryptoWithdrawalRoute(deps: ApiDependencies, variant: 'partner' | 'user') {
  const schema = variant === 'partner' ? partnerCryptoWithdrawalBodySchema : userCryptoWithdrawalBodySchema;
  const operation = variant === 'partner' ? 'POST /v1/partner/crypto-withdrawal' : 'POST /v1/crypto-withdrawal';
  return async (ctx: Context): Promise<void> => {
    const partnerId = ctx.state.partnerId as string;
    const body = parseOrThrow(schema, ctx.state.body, 'invalid-currency');
    const response = await performIdempotently(deps.pool, {
      partnerId,
      operation,
      key: ctx.get('idempotency-key') || undefined,
      body: ctx.state.body,
      // Checks that read current data run inside: a replayed key gets its first answer even if
      // the configured minimum has changed since, or the user is gone.
      async perform(withdrawalId) {
        const { fee } = await checkAgainstNetworkConfig(deps, body);
        let userId: string | null = null;
        if (body.sourceExternalUserId !== null) {
          // The primary, not a replica: a user registered a moment ago must be found.
          userId = (await findUserIdByExternalId(deps.pool, partnerId, body.sourceExternalUserId)) ?? null;
          if (!userId) throw new DomainError('invalid-user', `no user with external id ${body.sourceExternalUserId}`);
        }
        const rates = await deps.rateSource.currentEurRates();
        const input: CryptoWithdrawalInput = {
          withdrawalId,
          partnerId,
          userId,
          currency: body.currency,
          network: body.network,
          amount: body.amount,
          fee,
          destination: body.walletAddress,
          memo: body.memo,
          walletType: body.walletType,
          receiverType: body.receiverType,
          beneficiaryName: body.name,
          amountEur: new Decimal(body.amount).times(rates[body.currency]).toFixed(),
        };
        await startAndAwaitReservation(deps.temporal, {
          workflowType: 'cryptoWithdrawalWorkflow',
          workflowId: workflowIds.cryptoWithdrawal(withdrawalId),
          args: [input],
          searchAttributes: operationSearchAttributes(partnerId, variant === 'partner' ? 'crypto-withdrawal' : 'user-crypto-withdrawal', body.currency),
          operation: { id: withdrawalId, ledgerKind: 'CRYPTO_WITHDRAWAL' },
        });
        return { status: 200, body: { withdrawalId } };
      },
    });
    respondJson(ctx, response.status, response.body);
  };
}

/** Minimum amount and address format depend on the configured network (mainnet or testnet). */
async function checkAgainstNetworkConfig(deps: ApiDependencies, body: CryptoWithdrawalBody): Promise<{ fee: string }> {
  const config = await findNetworkConfig(deps.pool, body.currency, body.network);
  assertInvariant(config, `network_config has ${body.currency}/${body.network}`);
  const problems: string[] = [];
  const minimum = new Decimal(config.min_withdrawal);
  if (new Decimal(body.amount).lt(minimum)) problems.push(`amount: the minimum withdrawal is ${minimum.toFixed()} ${body.currency}`);
  const addressProblem = withdrawalAddressProblem(body.currency, body.network, config.mainnet, body.walletAddress);
  if (addressProblem) problems.push(`walletAddress: ${addressProblem}`);
  if (problems.length > 0) throw new DomainError('invalid-currency', problems.join('\n'));
  return { fee: new Decimal(config.fee_withdrawal).toFixed() };
}
