import { ApplicationFailure } from '@temporalio/common';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CryptoCurrency } from '../core/currencies';
import type { Network } from '../core/networks';
import { assertInvariant } from '../core/errors';
import { isFinal } from '../core/operation-status';
import type { AbandonOutcome, OperationState, OperationStatus, ReleaseOutcome } from '../core/operation-status';
import { Decimal } from '../core/money';
import type { TravelRuleCompletion } from '../core/travel-rule-completion';
import { consumeOperatorAction } from '../db/services/operator-audit.service';
import { travelRuleCompletionDigest } from '../db/services/travel-rule-completion-digest';
import { CryptoWithdrawal } from '../db/entities/crypto-withdrawal.entity';
import type { CryptoWithdrawalStage } from '../db/entities/crypto-withdrawal.entity';
import { recordBroadcast } from '../db/queries/outgoing-payment.queries';
import { findTravelRuleFacts, storeTravelRuleDataBeforeHandOff } from '../db/queries/crypto-withdrawal.queries';
import { keepNetworkFee } from '../db/services/kept-network-fee.service';
import { postNetworkFeePaid } from '../db/services/network-fee-paid.service';
import type { BroadcastResult } from './adapters/chain/chain-adapter';
import { reserve } from './reservation';
import type { Reservation } from '../db/queries/reservation.queries';
import { pollForAnswer } from './answer-polling';
import type { ActivityDependencies } from './dependencies';
import { activityFailure } from './domain-error.interceptor';
import { outgoingPaymentSteps } from './outgoing-payment.steps';
import { travelRuleDataOf } from './travel-rule-data';

/** A broadcast transaction whose confirmation is awaited. */
export interface BroadcastToConfirm {
  network: Network;
  transactionHash: string;
  broadcastAt: string;
}

export interface TravelRuleOutcome {
  /** Set when the destination is deny-listed: the withdrawal must not be broadcast. */
  deniedReason: string | null;
  requiresCompletion: boolean;
  deadlineMs: number;
  /** Already handed to the chain (a re-run after a Reset): the checks are over. */
  handedOff: boolean;
}

export function createCryptoWithdrawalActivities(deps: ActivityDependencies) {
  const inTransaction = <T>(work: (em: EntityManager) => Promise<T>) => deps.orm.em.fork().transactional(work);
  const payments = outgoingPaymentSteps(deps, {
    entity: CryptoWithdrawal,
    table: 'crypto_withdrawal',
    ledgerKind: 'CRYPTO_WITHDRAWAL',
    label: 'crypto withdrawal',
    rejectedBy: 'chain',
    externalReference: (withdrawal) => withdrawal.transactionHash,
    // Both recorded by our own steps as the chain answered (confirmationOf, broadcastWithdrawal); a refusal
    // counts only while no hash is stored: a stored hash means the transaction was taken.
    rejectionEvidence: (withdrawal) =>
      Promise.resolve(
        withdrawal.transactionHash
          ? withdrawal.failedOnChainAt
            ? `transaction ${withdrawal.transactionHash} failed on chain`
            : undefined
          : (withdrawal.externalRejection ?? undefined),
      ),
    // Failed on chain means mined: the partner gets the amount back but pays the fee, and the house paid the network's.
    // Any other rejection refunds both.
    afterRejection: async (em, withdrawal, now) => {
      if (withdrawal.failedOnChainAt) {
        await keepNetworkFee(
          em,
          { id: withdrawal.id, partnerId: withdrawal.partnerId, currency: withdrawal.currency, fee: withdrawal.fee },
          now,
        );
        await postNetworkFeePaid(em, withdrawal, now);
      }
    },
  });

  /** CONFIRMED or PENDING; a failed transaction is the chain's definite answer that the coins did not leave. */
  const confirmationOf = async (input: BroadcastToConfirm) => {
    const state = await deps.chain.confirmationState(input);
    if (state === 'PENDING') return 'PENDING' as const;
    // Confirmed or reverted, the transaction on chain may be a replacement: the withdrawal shows that one, and what it paid.
    const onChain = await recordLandedHash(input);
    await recordNetworkFeePaid(input.network, onChain);
    if (state === 'FAILED') {
      await recordFailedOnChain(input.network, onChain);
      throw activityFailure('transaction-failed', `transaction ${onChain} failed on chain`);
    }
    return 'CONFIRMED' as const;
  };
  /**
   * A replacement (same nonce, higher fee) may be what landed: the withdrawal then shows that hash before it settles or is
   * rejected (the workflow keeps asking by the first; the adapter knows every attempt). Idempotent; answers the landed hash.
   */
  const recordLandedHash = async (input: { network: Network; transactionHash: string }): Promise<string> => {
    const landed = await deps.chain.landedTransactionHash?.(input);
    if (!landed || landed === input.transactionHash) return input.transactionHash;
    await deps.orm.em
      .fork()
      .nativeUpdate(CryptoWithdrawal, { network: input.network, transactionHash: input.transactionHash }, { transactionHash: landed });
    return landed;
  };

  /**
   * What the transaction on chain paid the network, asked while the chain is being asked anyway and stored on the open
   * withdrawal, so the settlement or rejection that follows posts it from the database alone. Idempotent.
   */
  const recordNetworkFeePaid = async (network: Network, transactionHash: string): Promise<void> => {
    const paid = await deps.chain.networkFee?.({ network, transactionHash });
    if (paid === null || paid === undefined) return;
    await deps.pool.query(
      `update crypto_withdrawal set network_fee_paid = $1 where network = $2 and transaction_hash = $3
          and status in ('IN_PROGRESS', 'IN_PROGRESS_TR_DATA')`,
      [paid, network, transactionHash],
    );
  };

  /** Stored before the workflow hears of it, so the rejection that follows knows the network took its fee. Idempotent. */
  const recordFailedOnChain = async (network: Network, transactionHash: string): Promise<void> => {
    await deps.orm.em
      .fork()
      .nativeUpdate(CryptoWithdrawal, { network, transactionHash, failedOnChainAt: null }, { failedOnChainAt: deps.clock.now() });
  };

  return {
    /** Stores the withdrawal and holds amount + fee in one transaction, the allowlist checked first; re-running returns its state. */
    reserveWithdrawal: (withdrawalId: string): Promise<Reservation> => reserve(deps, 'crypto_withdrawal', withdrawalId),

    /** After a reservation whose outcome is unknown: see outgoingPaymentSteps.abandon. */
    abandonWithdrawal: (withdrawalId: string, reason: string): Promise<AbandonOutcome> => payments.abandon(withdrawalId, reason),

    /**
     * Stores the IVMS101 data, then applies the deny list and the EUR threshold to this withdrawal's value or its destination's
     * 24-hour sum when larger (split transfers add up). No transaction: the update writes only while open and not handed off.
     */
    async checkTravelRule(withdrawalId: string): Promise<TravelRuleOutcome> {
      const facts = await findTravelRuleFacts(deps.pool, withdrawalId);
      assertInvariant(facts, `crypto withdrawal ${withdrawalId} exists`);
      const withdrawal = deps.orm.em.fork().map(CryptoWithdrawal, facts.row as never);
      // A reset re-running the checks after the hand-off: the coins may have left, so nothing is decided again.
      const over = { deniedReason: null, requiresCompletion: false, deadlineMs: 0, handedOff: true };
      if (payments.isHandedOff(withdrawal) || isFinal(withdrawal.status)) return over;
      const data = travelRuleDataOf(withdrawal, facts, deps.compliance.travelRuleThresholdEur);
      const stored = await storeTravelRuleDataBeforeHandOff(deps.pool, {
        id: withdrawalId,
        data: data as unknown as Record<string, unknown>,
        now: deps.clock.now(),
      });
      if (!stored) return over;
      const denied = deps.compliance.denyListedAddresses.some((address) => address.toLowerCase() === withdrawal.destination.toLowerCase());
      return {
        deniedReason: denied ? 'destination address is on the deny list' : null,
        requiresCompletion: data.requiresCompletion,
        deadlineMs: deps.compliance.travelRuleDeadlineMs,
        handedOff: false,
      };
    },

    /**
     * Stores the completion only when it names the audit row `npm run ops -- travel-rule complete` wrote for this withdrawal
     * (used once, in the same transaction) and matches it; anything else (a Web UI Update, the bare CLI) is refused with the reason.
     */
    async recordTravelRuleCompletion(withdrawalId: string, completion: TravelRuleCompletion): Promise<{ refused: string } | undefined> {
      try {
        await inTransaction(async (em) => {
          const withdrawal = await em.findOne(CryptoWithdrawal, { id: withdrawalId });
          assertInvariant(withdrawal, `crypto withdrawal ${withdrawalId} exists`);
          const { operatorActionId, ...data } = completion;
          const action = await consumeOperatorAction(em, {
            actionId: operatorActionId ?? '',
            action: 'travel-rule-complete',
            operationId: withdrawalId,
          });
          if ('refused' in action) throw new CompletionRefused(action.refused);
          if (action.details.completionDigest !== (await travelRuleCompletionDigest(em, data))) {
            // Rolled back: the audit row stays unused for the completion it did record.
            throw new CompletionRefused(
              `the completion differs from what operator action ${operatorActionId} recorded: use npm run ops -- travel-rule complete`,
            );
          }
          withdrawal.travelRule = {
            ...(withdrawal.travelRule ?? {}),
            completion: { ...data, operatorActionId, completedAt: deps.clock.now().toISOString() },
          };
          await em.flush();
        });
        return undefined;
      } catch (error) {
        if (error instanceof CompletionRefused) return { refused: error.message };
        throw error;
      }
    },

    async setWithdrawalProgress(withdrawalId: string, progress: { status: OperationStatus; stage: CryptoWithdrawalStage }): Promise<void> {
      await inTransaction(async (em) => {
        // Locked: a release (a cancellation) committing meanwhile must not be overwritten.
        const withdrawal = await em.findOne(CryptoWithdrawal, { id: withdrawalId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
        assertInvariant(withdrawal, `crypto withdrawal ${withdrawalId} exists`);
        if (isFinal(withdrawal.status)) return; // final states stay final
        withdrawal.status = progress.status;
        withdrawal.stage = progress.stage;
        withdrawal.updatedAt = deps.clock.now();
        await em.flush();
      });
    },

    /** Only once the database says the travel-rule check passed: a workflow that skipped it cannot hand coins to the chain. */
    markWithdrawalHandOff: (withdrawalId: string): Promise<'MARKED' | { closed: OperationState }> =>
      payments.markHandOff(withdrawalId, { stage: 'BROADCASTING', denyList: deps.compliance.denyListedAddresses }),

    /** Only while open with its funds held; the adapter is idempotent on the withdrawal id (a retry gets the same hash). */
    async broadcastWithdrawal(withdrawalId: string): Promise<BroadcastResult | { closed: OperationState }> {
      const open = await payments.recordToHandOver(withdrawalId);
      if ('closed' in open) return open;
      const { record: withdrawal } = open;
      const result = await deps.chain
        .broadcast({
          withdrawalId,
          currency: withdrawal.currency as CryptoCurrency,
          network: withdrawal.network,
          destination: withdrawal.destination,
          amount: new Decimal(withdrawal.amount).toFixed(),
          memo: withdrawal.memo ?? null,
        })
        .catch(async (error: unknown) => {
          // The node's definite refusal is stored as it is heard: the rejection that follows releases on it.
          if (error instanceof ApplicationFailure && error.type === 'broadcast-rejected') {
            await deps.orm.em
              .fork()
              .nativeUpdate(
                CryptoWithdrawal,
                { id: withdrawalId, transactionHash: null, externalRejection: null },
                { externalRejection: error.message.slice(0, 500) || 'the node refused the transaction' },
              );
          }
          throw error;
        });
      await recordBroadcast(deps.pool, withdrawalId, result.transactionHash, deps.clock.now());
      return result;
    },

    /** Polls the chain for one window (see pollForAnswer): CONFIRMED, or PENDING for the workflow to ask again later. */
    async pollWithdrawalConfirmation(_withdrawalId: string, input: BroadcastToConfirm): Promise<'CONFIRMED' | 'PENDING'> {
      return pollForAnswer(() => confirmationOf(input));
    },

    /**
     * Fails with a retryable "not yet" until confirmed (the retry policy is the poll loop, adding nothing to the history).
     * For waits past the polling phase, and histories recorded before pollWithdrawalConfirmation.
     */
    async awaitWithdrawalConfirmation(_withdrawalId: string, input: BroadcastToConfirm): Promise<void> {
      if ((await confirmationOf(input)) === 'PENDING') {
        throw activityFailure('not-confirmed-yet', `transaction ${input.transactionHash} not confirmed yet`);
      }
    },

    /**
     * Posts the hold and closes the withdrawal; in the same transaction, what its transaction paid the network (stored when
     * the chain confirmed it) moves from the house's fee income to NETWORK_FEES. The database alone: nothing asked of the chain.
     */
    async settleWithdrawal(withdrawalId: string): Promise<void> {
      const withdrawal = await deps.orm.em.fork().findOne(CryptoWithdrawal, { id: withdrawalId });
      assertInvariant(withdrawal, `crypto withdrawal ${withdrawalId} exists`);
      if (!withdrawal.networkFeePaid) return payments.settle(withdrawalId);
      return payments.settle(withdrawalId, (client, now) => postNetworkFeePaid(client, withdrawal, now));
    },
    /** Before the hand-off only; HANDED_OFF (nothing released) once the coins may be on chain. */
    releaseWithdrawal: (withdrawalId: string, reason: string, stage: 'FAILED' | 'CANCELLED' = 'FAILED'): Promise<ReleaseOutcome> =>
      payments.release(withdrawalId, reason, stage),
    /** The chain's definite answer that the coins did not leave. */
    rejectWithdrawal: (withdrawalId: string, reason: string): Promise<void> => payments.reject(withdrawalId, reason),
    recordWithdrawalCancellation: (withdrawalId: string): Promise<void> => payments.recordCancellation(withdrawalId),
  };
}

/** A completion the database does not accept: thrown to roll the transaction back, answered as a refusal. */
class CompletionRefused extends Error {}
