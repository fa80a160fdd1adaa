import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Workflow } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import type pg from 'pg';
import { SimulatedBankAdapter } from '../../activities/adapters/bank/simulated-bank.adapter';
import type { ChainAdapter } from '../../activities/adapters/chain/chain-adapter';
import { createCryptoWithdrawalActivities } from '../../activities/crypto-withdrawal.activities';
import { cryptoWithdrawalContract } from '../../contracts';
import type { WorkflowContract } from '../../contracts';
import type { Network } from '../../core/networks';
import { addressMatchingKey } from '../../core/withdrawal-address-book';
import { systemClock } from '../../core/clock';
import { createLogger } from '../../core/logger';
import { recordAcceptedOperation } from '../../db/queries/accepted-operation.queries';
import type { AcceptedWithdrawal } from '../../db/queries/accepted-operation.queries';
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

/** A withdrawal the API accepted: its id, its partner and the request as recorded. */
export interface AcceptedTestWithdrawal {
  withdrawalId: string;
  partnerId: string;
  request: AcceptedWithdrawal;
}

/** Records a withdrawal as the API accepts it (0.25 ETH + 0.0005 fee, worth 775 EUR), with the overrides. */
export async function acceptedWithdrawal(
  pool: pg.Pool,
  partner: Pick<TestPartner, 'partnerId'>,
  overrides: Partial<AcceptedWithdrawal> = {},
): Promise<AcceptedTestWithdrawal> {
  const withdrawalId = randomUUID();
  const destination = overrides.destination ?? newWalletAddress('eth');
  const request: AcceptedWithdrawal = {
    user_id: null,
    currency: 'eth',
    network: 'ethereum',
    amount: '0.25',
    fee: '0.0005',
    destination,
    memo: null,
    wallet_type: 'CUSTODIAL',
    receiver_type: 'NATURAL',
    beneficiary_name: 'Jan Kowalski',
    amount_eur: '775',
    address_key: addressMatchingKey((overrides.network ?? 'ethereum') as Network, destination),
    ...overrides,
  };
  await recordAcceptedOperation(pool, {
    id: withdrawalId,
    kind: 'CRYPTO_WITHDRAWAL',
    partnerId: partner.partnerId,
    workflowId: cryptoWithdrawalContract.workflowId(withdrawalId),
    request,
  });
  return { withdrawalId, partnerId: partner.partnerId, request };
}

/** Runs an operation's activity as its own workflow would (workflow-binding.ts checks that). */
export function inOwnWorkflow<Result>(
  contract: WorkflowContract<Workflow>,
  operationId: string,
  activity: () => Promise<Result>,
): Promise<Result> {
  return new MockActivityEnvironment({
    workflowType: contract.workflowType,
    workflowExecution: { workflowId: contract.workflowId(operationId), runId: randomUUID() },
  }).run(activity);
}

/**
 * Accepted as the API does, then reserved by its own workflow and checked against the travel rule:
 * what the workflow has done before the hand-off.
 */
export async function reservedWithdrawal(
  activities: WithdrawalActivities,
  pool: pg.Pool,
  partner: TestPartner,
  overrides: Partial<AcceptedWithdrawal>,
): Promise<AcceptedTestWithdrawal> {
  const accepted = await acceptedWithdrawal(pool, partner, overrides);
  await inOwnWorkflow(cryptoWithdrawalContract, accepted.withdrawalId, () => activities.reserveWithdrawal(accepted.withdrawalId));
  await activities.checkTravelRule(accepted.withdrawalId);
  return accepted;
}
