import { ApplicationFailure } from '@temporalio/common';
import { createCryptoWithdrawalActivities } from '../../activities/crypto-withdrawal.activities';
import { createSepaTransferActivities } from '../../activities/sepa-transfer.activities';
import type { ActivityDependencies } from '../../activities/dependencies';
import type { BankPaymentState } from '../../activities/adapters/bank/bank-adapter';
import { UnknownBankReferenceError } from '../../activities/adapters/bank/bank-adapter';
import type { ConfirmationState } from '../../activities/adapters/chain/chain-adapter';

/**
 * The patient waits (after the polling phase, and for histories started before it): a "not yet"
 * must be a retryable failure, since the retry policy is the poll loop and a completion means an
 * answer; a definite failure must stay final.
 */
const NOW = new Date('2026-11-22T10:00:05.000Z');

/** The updates the activities asked of the database (only a chain's failure writes here). */
const updates: unknown[][] = [];
beforeEach(() => updates.splice(0));

function dependencies(chainState: ConfirmationState, bankState: BankPaymentState | Error): ActivityDependencies {
  return {
    orm: { em: { fork: () => ({ nativeUpdate: (...args: unknown[]) => Promise.resolve(updates.push(args)) }) } },
    clock: { now: () => NOW },
    chain: { broadcast: () => Promise.reject(new Error('not used')), confirmationState: () => Promise.resolve(chainState) },
    bank: {
      submit: () => Promise.reject(new Error('not used')),
      paymentState: () => (bankState instanceof Error ? Promise.reject(bankState) : Promise.resolve(bankState)),
    },
  } as unknown as ActivityDependencies;
}

const TRANSACTION = { network: 'ethereum', transactionHash: '0xabc', broadcastAt: '2026-11-22T10:00:00.000Z' } as const;
const WITHDRAWAL_ID = '5e6aba0b-fbaa-4e6f-aa3a-76436dc95935';
const TRANSFER_ID = 'ca594c93-93e4-425a-88f0-f8010f844bdb';

async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof ApplicationFailure)) throw new Error(`expected an ApplicationFailure, got ${String(error)}`);
  return error;
}

describe('awaitWithdrawalConfirmation (patient)', () => {
  it('completes only once the chain confirms', async () => {
    await expect(
      createCryptoWithdrawalActivities(dependencies('CONFIRMED', { state: 'PENDING' })).awaitWithdrawalConfirmation(
        WITHDRAWAL_ID,
        TRANSACTION,
      ),
    ).resolves.toBeUndefined();
  });

  it('fails retryably while the transaction is pending', async () => {
    const failure = await failureOf(
      createCryptoWithdrawalActivities(dependencies('PENDING', { state: 'PENDING' })).awaitWithdrawalConfirmation(
        WITHDRAWAL_ID,
        TRANSACTION,
      ),
    );
    expect(failure.type).toBe('not-confirmed-yet');
    expect(failure.nonRetryable).toBe(false);
  });

  it('fails for good, as a definite answer, when the transaction failed on chain', async () => {
    const failure = await failureOf(
      createCryptoWithdrawalActivities(dependencies('FAILED', { state: 'PENDING' })).awaitWithdrawalConfirmation(
        WITHDRAWAL_ID,
        TRANSACTION,
      ),
    );
    expect(failure.type).toBe('transaction-failed');
    expect(failure.nonRetryable).toBe(true);
    // Stored before the answer, once: the rejection that follows keeps the network fee.
    expect(updates).toHaveLength(1);
    expect(updates[0]!.slice(1)).toEqual([
      { network: 'ethereum', transactionHash: '0xabc', failedOnChainAt: null },
      { failedOnChainAt: NOW },
    ]);
  });

  it('writes nothing while the transaction is pending or once it is confirmed', async () => {
    await createCryptoWithdrawalActivities(dependencies('CONFIRMED', { state: 'PENDING' })).awaitWithdrawalConfirmation(
      WITHDRAWAL_ID,
      TRANSACTION,
    );
    await failureOf(
      createCryptoWithdrawalActivities(dependencies('PENDING', { state: 'PENDING' })).awaitWithdrawalConfirmation(
        WITHDRAWAL_ID,
        TRANSACTION,
      ),
    );
    expect(updates).toEqual([]);
  });
});

describe('awaitBankAnswer (patient)', () => {
  it("returns the bank's answer once there is one", async () => {
    const rejected = { state: 'REJECTED', reason: 'AC04 closed account number' } as const;
    await expect(createSepaTransferActivities(dependencies('PENDING', rejected)).awaitBankAnswer(TRANSFER_ID, 'REF-1')).resolves.toEqual(
      rejected,
    );
  });

  it('fails retryably while the bank has not answered', async () => {
    const failure = await failureOf(
      createSepaTransferActivities(dependencies('PENDING', { state: 'PENDING' })).awaitBankAnswer(TRANSFER_ID, 'REF-1'),
    );
    expect(failure.type).toBe('bank-answer-pending');
    expect(failure.nonRetryable).toBe(false);
  });

  it('fails for good when the bank does not know the reference', async () => {
    const failure = await failureOf(
      createSepaTransferActivities(dependencies('PENDING', new UnknownBankReferenceError('REF-1'))).awaitBankAnswer(TRANSFER_ID, 'REF-1'),
    );
    expect(failure.type).toBe('unknown-bank-reference');
    expect(failure.nonRetryable).toBe(true);
  });
});
