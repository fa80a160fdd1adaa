import { Context } from '@temporalio/activity';
import type { PrivateKeyAccount } from 'viem';
import { EVM_SWEEP, evmSweepContract, evmSweepKey } from '../contracts';
import type {
  EvmSweepClaim,
  EvmSweepInput,
  EvmSweepProgress,
  EvmSweepRoundInput,
  EvmSweepRoundResult,
  EvmSweepWorkflow,
} from '../contracts';
import { DomainError } from '../core/errors';
import type { EvmTransactionRecord } from '../db/queries/evm-transaction.queries';
import {
  claimEvmSweep,
  findDueSweeps,
  findInFlightSweeps,
  findEvmSweep,
  finishEvmSweep,
  markGasReady,
  markSweepSent,
  reservedNativeAt,
  setGasTopUp,
} from '../db/queries/evm-sweep.queries';
import type { EvmSweepFailure, EvmSweepRecord } from '../db/queries/evm-sweep.queries';
import { transferKind } from './adapters/chain/evm/evm-amounts';
import { EVM_NETWORKS, NETWORK_DECLARATIONS } from '../core/networks';
import { CURRENCY_SCALE } from '../core/currencies';
import type { EvmCurrency, EvmNetwork } from '../core/networks';
import type { EvmSweeper } from './adapters/chain/evm/evm-sweeper';
import type { ActivityDependencies } from './dependencies';
import { gasTopUpNeeded, nativeSweepValue } from './evm-sweep-amounts';
import { unitsToDecimal } from '../core/money';
import { derivedTransferId } from '../db/ledger/derived-transfer-id';
import { inPgTransaction } from '../db/pg-transaction';
import { postNetworkFee } from '../db/services/network-fee-paid.service';

/** What sweeping needs: the chain side (keys, balances, signing) and when an address is worth sweeping. */
export interface EvmSweepConfig {
  sweeper: EvmSweeper;
  /** Per currency, exact decimal text: credited and unswept above this at an address, it is swept. */
  thresholds: Readonly<Record<EvmCurrency, string>>;
  pollIntervalMs: number;
}

export type EvmSweepDependencies = Pick<ActivityDependencies, 'pool' | 'clock' | 'log'> & {
  /** Absent: this worker sweeps nothing (no EVM network, or no EVM_DEPOSIT_SEED). */
  evmSweeps?: EvmSweepConfig;
};

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export function createEvmSweepActivities(deps: EvmSweepDependencies) {
  function configured(network: string): { config: EvmSweepConfig; network: EvmNetwork } {
    if (!(EVM_NETWORKS as readonly string[]).includes(network)) throw new DomainError('invalid-request', `${network} is no EVM network`);
    const config = deps.evmSweeps;
    // Retryable: in a rolling deploy a sweeper that has the network's settings and the seed takes the next attempt.
    if (!config || !config.sweeper.networks().includes(network as EvmNetwork)) {
      throw new Error(`this worker does not sweep ${network} (it needs EVM_RPC_URL_${network.toUpperCase()} and EVM_DEPOSIT_SEED)`);
    }
    return { config, network: network as EvmNetwork };
  }

  const progressOf = (sweep: EvmSweepRecord, stage: string): EvmSweepProgress => ({
    sweepId: sweep.id,
    status: sweep.status,
    stage,
    ...(sweep.failureReason ? { failureReason: sweep.failureReason } : {}),
    ...(sweep.transactionHash ? { transactionHash: sweep.transactionHash } : {}),
  });
  const waiting = (sweep: EvmSweepRecord, stage: string): EvmSweepProgress => ({ sweepId: sweep.id, status: 'IN_FLIGHT', stage });

  /**
   * Ends the sweep with what its transactions paid the network (its own, if one landed, and its gas top-up's), posted as a
   * NETWORK_FEE transfer out of fee income in the same transaction. False when it was final already. `ownLanded`: its own
   * transaction is known to be on chain, so a receipt the node cannot give now is read again (thrown), never posted as nothing.
   */
  async function finish(
    config: EvmSweepConfig,
    sweep: EvmSweepRecord,
    outcome: Parameters<typeof finishEvmSweep>[2],
    ownLanded: boolean,
  ): Promise<boolean> {
    const network = sweep.network as EvmNetwork;
    // Read afresh: another run may have recorded the top-up since this one read the sweep.
    const current = (await findEvmSweep(deps.pool, sweep.id)) ?? sweep;
    const [own, topUp] = await Promise.all([
      config.sweeper.stored(sweep.id),
      current.gasTopUpTransactionId ? config.sweeper.stored(current.gasTopUpTransactionId) : undefined,
    ]);
    const ownWei = own ? await config.sweeper.gasPaid(network, own) : 0n;
    if (ownLanded && ownWei === 0n)
      throw new Error(`sweep ${sweep.id}: the node has no receipt of its landed transaction yet: its gas is read again`);
    const wei = ownWei + (topUp ? await config.sweeper.gasPaid(network, topUp) : 0n);
    const now = deps.clock.now();
    if (wei === 0n) return finishEvmSweep(deps.pool, sweep.id, outcome, now);
    const currency = NETWORK_DECLARATIONS[network].nativeCurrency;
    const transferId = derivedTransferId(sweep.id, 'sweep-network-fee');
    return inPgTransaction(deps.pool, async (client) => {
      if (!(await finishEvmSweep(client, sweep.id, outcome, now, { transferId, baseUnits: wei }))) return false;
      await postNetworkFee(client, { transferId, currency, amount: unitsToDecimal(wei, CURRENCY_SCALE[currency]) }, now);
      return true;
    });
  }

  async function fail(
    sweep: EvmSweepRecord,
    reason: EvmSweepFailure,
    detail: string,
    transactionHash?: string,
    config?: EvmSweepConfig,
  ): Promise<EvmSweepProgress> {
    const outcome = { status: 'FAILED' as const, reason, ...(transactionHash ? { transactionHash } : {}) };
    // Only a reverted transaction (or top-up) paid gas: every other failure is decided before anything is sent.
    const failed =
      reason === 'REVERTED' && config
        ? await finish(config, sweep, outcome, transactionHash !== undefined)
        : await finishEvmSweep(deps.pool, sweep.id, outcome, deps.clock.now());
    const final = (await findEvmSweep(deps.pool, sweep.id))!;
    if (!failed) {
      // Already final, or another run of this step stored the sweep's transaction meanwhile: the next step follows it.
      deps.log.warn(`sweep ${sweep.id}: not failed (${reason}): it is ${final.status}, or its transaction was stored meanwhile`);
      return final.status === 'IN_FLIGHT' ? waiting(final, 'SIGNED') : progressOf(final, final.status);
    }
    deps.log.error(`sweep ${sweep.id} of ${sweep.currency} from ${sweep.address} on ${sweep.network} failed (${reason}): ${detail}`);
    return progressOf(final, final.status);
  }

  /**
   * Once another run of this step has stored the sweep's transaction, what the chain said before signing is stale (an empty
   * address or a nonce ahead may be that run's work): the next step follows that transaction.
   */
  async function signedMeanwhile(config: EvmSweepConfig, sweep: EvmSweepRecord): Promise<EvmSweepProgress | undefined> {
    return (await config.sweeper.stored(sweep.id)) ? waiting(sweep, 'SIGNED') : undefined;
  }

  /**
   * Signed by the deposit address's key and stored before anything is sent: a native sweep moves what was credited (or what
   * is there, if less) minus its gas; a token sweep moves the credited tokens (or less) and gets gas from the hot wallet.
   */
  async function signSweep(
    config: EvmSweepConfig,
    sweep: EvmSweepRecord,
    signer: PrivateKeyAccount,
  ): Promise<EvmTransactionRecord | EvmSweepProgress> {
    const { sweeper } = config;
    const network = sweep.network as EvmNetwork;
    const currency = sweep.currency as EvmCurrency;
    const nonces = await sweeper.nonces(network, signer.address);
    if (nonces.stored !== nonces.chain)
      return (
        (await signedMeanwhile(config, sweep)) ??
        fail(
          sweep,
          'NONCE_MISMATCH',
          `the address's next nonce is ${nonces.stored} here and ${nonces.chain} on the chain: the key was used elsewhere, or the node lost transactions we signed; nothing was signed`,
        )
      );
    const [balances, fees] = await Promise.all([sweeper.balances(network, sweep.address), sweeper.fees(network)]);
    let amount: bigint;
    if (transferKind(currency, network).kind === 'native') {
      const value = nativeSweepValue({
        claimed: sweep.amountBaseUnits,
        balance: balances.native,
        gasLimit: await sweeper.gasLimit(network, currency),
        fees,
      });
      if (value.kind === 'nothing')
        return (
          (await signedMeanwhile(config, sweep)) ??
          fail(sweep, 'NOTHING_AT_ADDRESS', `the address holds ${balances.native} wei, not enough to pay a sweep's gas`)
        );
      if (value.kind === 'fees-too-high') {
        deps.log.warn(`sweep ${sweep.id}: gas at ${fees.maxFeePerGas} wei costs more than the sweep moves; waiting for lower fees`);
        return waiting(sweep, 'WAITING_FOR_FEES');
      }
      amount = value.value;
    } else {
      amount = sweep.amountBaseUnits < balances.token ? sweep.amountBaseUnits : balances.token;
      if (amount === 0n)
        return (await signedMeanwhile(config, sweep)) ?? fail(sweep, 'NOTHING_AT_ADDRESS', `the address holds no ${currency}`);
    }
    const record = await sweeper.signSweep(network, {
      sweepId: sweep.id,
      signer,
      currency,
      amountBaseUnits: amount,
      hotWallet: sweep.hotWallet,
      fees,
    });
    deps.log.info(
      `signed sweep ${sweep.id}: ${record.amountBaseUnits} base units of ${currency} from ${sweep.address} to ${sweep.hotWallet} on ${network}`,
      { nonce: record.nonce.toString(), transactionHash: record.attempts[0]!.transactionHash },
    );
    await sweeper.testSeams?.afterSigning?.(sweep.id);
    return record;
  }

  /**
   * A token sweep's gas: its transaction's most cost (gas limit × max fee) less what the address holds beyond coins not ours
   * to spend, sent from the hot wallet as a stored transaction of its own and waited for.
   */
  async function ensureGas(
    config: EvmSweepConfig,
    sweep: EvmSweepRecord,
    sweepTransaction: EvmTransactionRecord,
  ): Promise<'ready' | EvmSweepProgress> {
    const network = sweep.network as EvmNetwork;
    const now = deps.clock.now();
    if (transferKind(sweep.currency as EvmCurrency, network).kind === 'native') {
      await markGasReady(deps.pool, sweep.id, now);
      return 'ready';
    }
    let topUp = sweep.gasTopUpTransactionId
      ? { transactionId: sweep.gasTopUpTransactionId, amountBaseUnits: sweep.gasTopUpBaseUnits! }
      : undefined;
    if (!topUp) {
      const native = NETWORK_DECLARATIONS[network].nativeCurrency;
      const [balances, reserved] = await Promise.all([
        config.sweeper.balances(network, sweep.address),
        reservedNativeAt(deps.pool, network, sweep.address, native, CURRENCY_SCALE[native]),
      ]);
      const first = sweepTransaction.attempts[0]!;
      const needed = gasTopUpNeeded({ gasLimit: first.gasLimit, maxFeePerGas: first.maxFeePerGas, balance: balances.native, reserved });
      if (needed === 0n) {
        await markGasReady(deps.pool, sweep.id, now);
        return 'ready';
      }
      // Recorded before it is signed: a retry tops up under the same id, by the same amount.
      topUp = await setGasTopUp(deps.pool, sweep.id, needed);
      // The next step reads the sweep afresh.
      if (!topUp) return waiting(sweep, 'GAS_TOP_UP');
    }
    const stored = await config.sweeper.stored(topUp.transactionId);
    if (!stored) {
      const signed = await config.sweeper.signGasTopUp(network, {
        id: topUp.transactionId,
        address: sweep.address,
        amountWei: topUp.amountBaseUnits,
      });
      deps.log.info(`sweep ${sweep.id}: the hot wallet tops up ${sweep.address} with ${topUp.amountBaseUnits} wei of gas`, {
        transactionHash: signed.attempts[0]!.transactionHash,
      });
      await config.sweeper.send(network, signed);
      return waiting(sweep, 'GAS_TOP_UP');
    }
    const { state, landedHash } = await config.sweeper.state(network, stored);
    if (state === 'PENDING') return waiting(sweep, 'GAS_TOP_UP');
    if (state === 'FAILED') return fail(sweep, 'REVERTED', `its gas top-up ${landedHash ?? ''} reverted`, undefined, config);
    await markGasReady(deps.pool, sweep.id, now);
    return 'ready';
  }

  return {
    /**
     * One round of a network's sweeper: each sweep in flight and each address due gets its sweep workflow, started or joined
     * (USE_EXISTING on a fixed id).
     */
    // A property, not a method: the sweeper's workflow runs it, apart from the sweep's two (activities/index.ts).
    startDueEvmSweeps: async (input: EvmSweepRoundInput): Promise<EvmSweepRoundResult> => {
      const { config, network } = configured(input.network);
      const thresholds = Object.fromEntries(config.sweeper.currencies(network).map((currency) => [currency, config.thresholds[currency]]));
      const due = await findDueSweeps(deps.pool, network, thresholds, EVM_SWEEP.duePerRound);
      const inFlight = await findInFlightSweeps(deps.pool, network, EVM_SWEEP.duePerRound);
      const context = Context.current();
      for (const sweep of [...inFlight, ...due]) {
        const args: EvmSweepInput = {
          network,
          address: sweep.address,
          currency: sweep.currency as EvmSweepInput['currency'],
          pollIntervalMs: config.pollIntervalMs,
        };
        await context.client.workflow.start<EvmSweepWorkflow>(evmSweepContract.workflowType, {
          workflowId: evmSweepContract.workflowId(evmSweepKey(args)),
          taskQueue: context.info.taskQueue,
          args: [args],
          workflowIdConflictPolicy: 'USE_EXISTING',
          staticSummary: `Sweeps credited ${sweep.currency} from deposit address ${sweep.address} on ${network} to the hot wallet`,
        });
        context.heartbeat();
      }
      if (due.length > 0) deps.log.info(`${due.length} sweep(s) due on ${network}`);
      return { network, due: due.length, pollIntervalMs: config.pollIntervalMs };
    },

    /** Takes the address's credited deposits into a sweep, or answers the one in flight; safe to run twice or at once. */
    async claimEvmSweep(input: EvmSweepInput): Promise<EvmSweepClaim> {
      const { config, network } = configured(input.network);
      if (!ADDRESS.test(input.address)) throw new DomainError('invalid-request', 'the address is no EVM address');
      const currency = input.currency;
      if (!config.sweeper.currencies(network).includes(currency))
        throw new DomainError('invalid-request', `${currency} is not swept on ${network}`);
      const claim = await claimEvmSweep(deps.pool, {
        network,
        address: input.address,
        currency,
        decimals: CURRENCY_SCALE[currency],
        threshold: config.thresholds[currency],
        hotWallet: config.sweeper.hotWallet(network)!,
        now: deps.clock.now(),
      });
      if (claim.kind !== 'claimed') return claim;
      if (!claim.resumed)
        deps.log.info(
          `sweep ${claim.sweep.id}: ${claim.sweep.amountBaseUnits} base units of ${currency} credited at ${claim.sweep.address} on ${network}`,
        );
      return { kind: 'claimed', sweepId: claim.sweep.id, resumed: claim.resumed };
    },

    /**
     * The sweep's next step, from what Postgres and the chain say now: sign and store; for a token, top up its gas; mark sent and
     * send; follow it to SWEPT or FAILED. Run twice, or after a crash anywhere, it sends what is stored and never signs twice.
     */
    async advanceEvmSweep(input: { sweepId: string }): Promise<EvmSweepProgress> {
      const sweep = await findEvmSweep(deps.pool, input.sweepId);
      if (!sweep) throw new DomainError('not-found', `no sweep ${input.sweepId}`);
      if (sweep.status !== 'IN_FLIGHT') return progressOf(sweep, sweep.status);
      const { config, network } = configured(sweep.network);
      // Other processes may write this row: where a sweep pays is this sweeper's own hot wallet, whatever the row says.
      const hotWallet = config.sweeper.hotWallet(network);
      if (sweep.hotWallet !== hotWallet) {
        deps.log.error(`refusing sweep ${sweep.id}: it would pay ${sweep.hotWallet}, not the hot wallet ${hotWallet ?? '?'} of ${network}`);
        throw new Error(`sweep ${sweep.id} pays ${sweep.hotWallet}, not the hot wallet of ${network}: nothing is signed or sent`);
      }
      let record = await config.sweeper.stored(sweep.id);
      if (!record) {
        // Only signing needs the address's key: a stored transaction is sent and followed without it.
        const signer = config.sweeper.depositSigner(sweep.depositIndex);
        if (signer.address.toLowerCase() !== sweep.address) {
          return fail(
            sweep,
            'ADDRESS_NOT_DERIVED',
            `the EVM deposit key does not derive the address at deposit index ${sweep.depositIndex}: its coins cannot be moved from here`,
          );
        }
        const signed = await signSweep(config, sweep, signer);
        if ('status' in signed) return signed;
        record = signed;
      }
      if (!sweep.gasReadyAt) {
        // A top-up pays the sweep's address from the hot wallet: one this sweeper derives, whatever the row says.
        if (config.sweeper.depositSigner(sweep.depositIndex).address.toLowerCase() !== sweep.address) {
          throw new Error(`sweep ${sweep.id}: its address is not deposit index ${sweep.depositIndex}'s: no gas is sent to it`);
        }
        const gas = await ensureGas(config, sweep, record);
        if (gas !== 'ready') return gas;
      }
      if (!sweep.sentAt) {
        // Marked first: from here on the transaction may be on chain, and a rerun only follows it.
        await markSweepSent(deps.pool, sweep.id, record.amountBaseUnits, deps.clock.now());
        await config.sweeper.send(network, record);
        await config.sweeper.testSeams?.afterSending?.(sweep.id);
        return waiting(sweep, 'SENT');
      }
      const { state, landedHash } = await config.sweeper.state(network, record);
      if (state === 'PENDING') return waiting(sweep, 'SENT');
      if (state === 'FAILED') return fail(sweep, 'REVERTED', `its transaction ${landedHash ?? ''} reverted`, landedHash, config);
      await finish(config, sweep, { status: 'SWEPT', transactionHash: landedHash!, sentBaseUnits: record.amountBaseUnits }, true);
      deps.log.info(
        `swept ${record.amountBaseUnits} base units of ${sweep.currency} from ${sweep.address} to ${sweep.hotWallet} on ${network}`,
        { sweepId: sweep.id, transactionHash: landedHash },
      );
      return progressOf((await findEvmSweep(deps.pool, sweep.id))!, 'SWEPT');
    },
  };
}
