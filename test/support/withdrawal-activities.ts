import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { MockActivityEnvironment } from '@temporalio/testing';
import type pg from 'pg';
import { SimulatedBankAdapter } from '../../activities/adapters/bank/simulated-bank.adapter';
import type { ChainAdapter } from '../../activities/adapters/chain/chain-adapter';
import { createCryptoWithdrawalActivities } from '../../activities/crypto-withdrawal.activities';
import { cryptoWithdrawalContract } from '../../contracts';
import type { CryptoWithdrawalInput } from '../../contracts';
import { systemClock } from '../../core/clock';
import { createLogger } from '../../core/logger';
import { recordAcceptedOperation } from '../../db/queries/accepted-operation.queries';
import { newWalletAddress } from '../../db/services/account-identifiers';
import type { TestPartner } from './fixtures';

/** The crypto withdrawal's real activities against the run's Postgres, on the chain given; travel rule above 1000 EUR. */
export function withdrawalActivitiesOn(orm: MikroORM, pool: pg.Pool, chain: ChainAdapter) {
  return createCryptoWithdrawalActivities({
    orm,
    pool,
    clock: systemClock,
    log: createLogger('withdrawal-activities-test', 'error'),
    chain,
    bank: new SimulatedBankAdapter({ pool, settlementDelayMs: 0, rejectCreditorIbans: [] }),
    compliance: { travelRuleThresholdEur: '1000', travelRuleDeadlineMs: 60_000, denyListedAddresses: [] },
  });
}

export type WithdrawalActivities = ReturnType<typeof withdrawalActivitiesOn>;

/**
 * Accepted as the API does, then reserved by its own workflow (the first step checks both) and
 * checked against the travel rule: what the workflow has done before the hand-off.
 */
export async function reservedWithdrawal(
  activities: WithdrawalActivities,
  pool: pg.Pool,
  partner: TestPartner,
  overrides: Partial<CryptoWithdrawalInput>,
): Promise<CryptoWithdrawalInput> {
  const withdrawalId = randomUUID();
  const input: CryptoWithdrawalInput = {
    withdrawalId,
    partnerId: partner.partnerId,
    userId: null,
    currency: 'eth',
    network: 'ethereum',
    amount: '0.25',
    fee: '0.0005',
    destination: newWalletAddress('eth'),
    memo: null,
    walletType: 'CUSTODIAL',
    receiverType: 'NATURAL',
    beneficiaryName: 'Jan Kowalski',
    amountEur: '775',
    ...overrides,
  };
  const workflowId = cryptoWithdrawalContract.workflowId(withdrawalId);
  await recordAcceptedOperation(pool, {
    id: withdrawalId,
    kind: 'CRYPTO_WITHDRAWAL',
    partnerId: partner.partnerId,
    workflowId,
    request: input,
  });
  await new MockActivityEnvironment({
    workflowType: cryptoWithdrawalContract.workflowType,
    workflowExecution: { workflowId, runId: randomUUID() },
  }).run((request: CryptoWithdrawalInput) => activities.reserveWithdrawal(request), input);
  await activities.checkTravelRule(withdrawalId);
  return input;
}
