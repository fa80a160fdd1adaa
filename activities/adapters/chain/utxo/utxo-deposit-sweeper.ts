import { randomUUID } from 'node:crypto';
import * as bitcoin from 'bitcoinjs-lib';
import type pg from 'pg';
import type { Clock } from '../../../../core/clock';
import { CURRENCY_SCALE } from '../../../../core/currencies';
import { addressOfPublicKey } from '../../../../core/deposit-addresses';
import type { DepositSigningKeys } from '../../../../core/deposit-seed';
import type { Logger } from '../../../../core/logger';
import { Decimal, unitsToDecimal } from '../../../../core/money';
import { NETWORK_DECLARATIONS } from '../../../../core/networks';
import type { UtxoNetwork } from '../../../../core/networks';
import { derivedTransferId } from '../../../../db/ledger/derived-transfer-id';
import { inPgTransaction } from '../../../../db/pg-transaction';
import {
  findSweepableUtxoDeposits,
  findUtxoSweepInFlight,
  finishUtxoSweep,
  releaseUtxoSweepDeposits,
  storeUtxoSweep,
  sweepableUtxoTotal,
} from '../../../../db/queries/utxo-sweep.queries';
import type { SweepableDeposit, UtxoSweepRecord } from '../../../../db/queries/utxo-sweep.queries';
import { lockUtxoWalletForSigning, recordChangeScript } from '../../../../db/queries/utxo-wallet.queries';
import { postNetworkFee } from '../../../../db/services/network-fee-paid.service';
import { ALREADY_KNOWN, INPUTS_GONE } from './utxo-chain.adapter';
import type { UtxoChainAdapter, UtxoRuntime } from './utxo-chain.adapter';
import { UtxoRpcError } from './utxo-rpc';
import { CHANGE } from './utxo-hot-wallet';
import { baseUnits, dustLimit, signSpend } from './utxo-transaction-builder';
import type { KeyedOutput } from './utxo-transaction-builder';

/** Deposits one sweep spends at most: about 14,000 virtual bytes of P2WPKH inputs, far below the 100,000 a node relays. */
export const INPUTS_PER_SWEEP = 200;
/** What spending one deposit adds to a transaction, in virtual bytes: P2WPKH (btc, ltc) and P2PKH (doge). */
const P2WPKH_INPUT_VBYTES = 68;
const P2PKH_INPUT_VBYTES = 148;

export interface UtxoDepositSweeperOptions {
  pool: pg.Pool;
  adapter: Pick<UtxoChainAdapter, 'networks' | 'runtime' | 'feeRate'>;
  /** The families' account-level private keys (from BTC_DEPOSIT_SEED and its kin): a network whose family has none is not swept. */
  keys: DepositSigningKeys;
  /** Per network, exact decimal text: credited, unswept deposits adding up to at least this are swept. */
  thresholds: Partial<Record<UtxoNetwork, string>>;
  clock: Clock;
  log: Logger;
}

/** Where a network's sweeping stands after a round. */
export interface UtxoSweepRound {
  /** NOTHING: no sweep in flight, and what is credited is below the threshold (or nothing is). */
  stage: 'NOTHING' | 'SENT' | 'SWEPT' | 'FAILED';
  sweepId?: string;
  txid?: string;
  /** Deposits the sweep in flight (or just finished) spends. */
  deposits: number;
}

/**
 * Sweeps a UTXO network's credited deposits to the hot wallet, one transaction at a time per network: many deposit outputs,
 * each signed with its address's key, to one fresh change address of the wallet, at the withdrawals' fee rate. Exactly
 * once: the signed bytes are stored with the deposits they take, in one transaction under the wallet's lock, before they
 * are sent; a round follows the one in flight (sent again when the node lost it) before it signs another. Confirmed at the
 * withdrawals' depth, the sweep is SWEPT and what it paid the miners is posted as a NETWORK_FEE, in one transaction; the
 * scanner records the coin it made, which withdrawals then spend. An input spent in a block by a transaction not the
 * sweep's (a deposit key used elsewhere) ends it FAILED: its other deposits go to the next sweep, and custody
 * reconciliation shows what is missing. Never replaced with a higher fee: a sweep the node refuses waits.
 */
export class UtxoDepositSweeper {
  constructor(private readonly options: UtxoDepositSweeperOptions) {}

  /** The networks with a node here whose family's seed the sweeper was given. */
  networks(): UtxoNetwork[] {
    const { families } = this.options.keys;
    return this.options.adapter.networks().filter((network) => families.includes(NETWORK_DECLARATIONS[network].depositKeys.family));
  }

  async round(network: UtxoNetwork): Promise<UtxoSweepRound> {
    const runtime = await this.options.adapter.runtime(network, 'sweep deposits');
    const inFlight = await findUtxoSweepInFlight(this.options.pool, network);
    if (inFlight) return this.follow(runtime, inFlight);
    const signed = await this.sign(runtime);
    if (!signed) return { stage: 'NOTHING', deposits: 0 };
    return this.send(runtime, signed);
  }

  private async follow(runtime: UtxoRuntime, sweep: UtxoSweepRecord): Promise<UtxoSweepRound> {
    const state = await runtime.rpc.transaction(sweep.txid);
    if (state?.blockHash && state.confirmations >= runtime.config.requiredConfirmations) return this.finishSwept(runtime, sweep);
    if (state) return { stage: 'SENT', sweepId: sweep.id, txid: sweep.txid, deposits: sweep.inputs };
    // Neither in a block nor in the mempool: dropped by a reorganisation, or evicted. The same bytes again.
    this.options.log.warn(`${runtime.network}: sweep ${sweep.id} (${sweep.txid}) is not known to the node; sending it again`);
    return this.send(runtime, sweep);
  }

  /**
   * With the credited deposits adding up to the threshold: the largest (up to INPUTS_PER_SWEEP) that are each worth twice
   * what spending them costs at the fee rate, signed and stored with them under the wallet's lock; else nothing, and
   * nothing changed (the smaller ones wait for lower fees, or for more to sweep beside them).
   */
  private async sign(runtime: UtxoRuntime): Promise<UtxoSweepRecord | undefined> {
    const { network } = runtime;
    const threshold = this.options.thresholds[network];
    // Read first without the lock: most rounds find nothing to sweep, and the wallet's lock is the withdrawals' too.
    if (threshold === undefined || new Decimal(await sweepableUtxoTotal(this.options.pool, network)).lt(threshold)) return undefined;
    const feeRate = await this.options.adapter.feeRate(runtime);
    const worthSweeping = (deposits: readonly SweepableDeposit[]) => {
      const inputCost = BigInt(Math.ceil(feeRate * (runtime.wallet.segwit ? P2WPKH_INPUT_VBYTES : P2PKH_INPUT_VBYTES)));
      return deposits.filter((deposit) => baseUnits(deposit.amount, network) >= 2n * inputCost);
    };
    if (worthSweeping(await findSweepableUtxoDeposits(this.options.pool, network, INPUTS_PER_SWEEP)).length === 0) return undefined;
    try {
      return await inPgTransaction(this.options.pool, async (client) => {
        const { changeIndex } = await lockUtxoWalletForSigning(client, network);
        if (await findUtxoSweepInFlight(client, network)) throw new NothingSigned();
        const inputs = this.keyed(runtime, worthSweeping(await findSweepableUtxoDeposits(client, network, INPUTS_PER_SWEEP)));
        if (inputs.length === 0) throw new NothingSigned();
        const changeKey = { chain: CHANGE, index: changeIndex };
        const script = runtime.wallet.script(changeKey);
        const amount = inputs.reduce((sum, input) => sum + input.value, 0n);
        // Sized by a first signature; a signature a byte longer or shorter moves the rate by a hair, so a byte per input more.
        const probe = signSpend(runtime.wallet.segwit, inputs, [{ script, value: amount - 1n }]);
        const size = bitcoin.Transaction.fromHex(probe.rawTransaction).virtualSize() + inputs.length;
        const sent = amount - BigInt(Math.ceil(feeRate * size));
        if (sent < dustLimit(network, script)) throw new NothingSigned();
        const signed = signSpend(runtime.wallet.segwit, inputs, [{ script, value: sent }]);
        await recordChangeScript(client, network, { hex: Buffer.from(script).toString('hex'), index: changeIndex });
        const sweep = {
          id: randomUUID(),
          network,
          txid: signed.txid,
          rawTransaction: signed.rawTransaction,
          inputs: inputs.length,
          amountBaseUnits: amount,
          sentBaseUnits: sent,
          createdAt: this.options.clock.now(),
        };
        await storeUtxoSweep(
          client,
          sweep,
          inputs.map((input) => input.deposit.id),
        );
        this.options.log.info(
          `${network}: sweep ${sweep.id} signed: ${inputs.length} deposit(s), ${amount} base units, ${sent} to the hot wallet (${signed.txid})`,
        );
        return { ...sweep, status: 'IN_FLIGHT' as const };
      });
    } catch (error) {
      // Rolled back: the change index taken under the lock is not spent on a sweep that was not signed.
      if (error instanceof NothingSigned) return undefined;
      throw error;
    }
  }

  /** Each deposit with its address's key; one the account key does not derive is left where it is, and logged. */
  private keyed(runtime: UtxoRuntime, deposits: readonly SweepableDeposit[]): Array<KeyedOutput & { deposit: SweepableDeposit }> {
    const family = NETWORK_DECLARATIONS[runtime.network].depositKeys.family;
    const account = this.options.keys.accountKey(family, runtime.wallet.mode);
    if (!account)
      throw new Error(`this process has no ${family.toUpperCase()}_DEPOSIT_SEED: it cannot sign for ${runtime.network} deposit addresses`);
    const external = account.deriveChild(0);
    return deposits.flatMap((deposit) => {
      const key = external.deriveChild(deposit.depositIndex);
      if (addressOfPublicKey(family, key.publicKey!, runtime.wallet.mode) !== deposit.address) {
        this.options.log.error(
          `${runtime.network}: the deposit account key does not derive ${deposit.address} at deposit index ${deposit.depositIndex}: deposit ${deposit.id} is not swept`,
        );
        return [];
      }
      return [{ txid: deposit.txid, vout: deposit.vout, value: baseUnits(deposit.amount, runtime.network), key, deposit }];
    });
  }

  /**
   * Sends the stored bytes. A node that has them counts as sent; a node that knows nothing of the sweep and lacks an input
   * in its confirmed unspent set means another transaction spent it: the sweep is FAILED. Any other refusal is retried.
   */
  private async send(runtime: UtxoRuntime, sweep: UtxoSweepRecord): Promise<UtxoSweepRound> {
    const sent: UtxoSweepRound = { stage: 'SENT', sweepId: sweep.id, txid: sweep.txid, deposits: sweep.inputs };
    try {
      await runtime.rpc.send(sweep.rawTransaction);
      return sent;
    } catch (error) {
      if (!(error instanceof UtxoRpcError)) throw error;
      if (ALREADY_KNOWN.test(error.message) || (await runtime.rpc.transaction(sweep.txid))) return sent;
      const unspent = INPUTS_GONE.test(error.message) ? await this.unspentInputs(runtime, sweep) : undefined;
      if (!unspent || unspent.length === sweep.inputs) {
        throw new Error(`${runtime.network} refused sweep ${sweep.id}'s transaction: ${error.message}`);
      }
      const released = await inPgTransaction(this.options.pool, async (client) => {
        const now = this.options.clock.now();
        if (!(await finishUtxoSweep(client, sweep.id, { status: 'FAILED', reason: 'INPUTS_SPENT' }, now))) return undefined;
        // It can never be mined now: the deposits whose outputs are still there go to the next sweep.
        return releaseUtxoSweepDeposits(client, sweep.id, unspent);
      });
      if (released !== undefined)
        this.options.log.error(
          `${runtime.network}: ${sweep.inputs - unspent.length} deposit output(s) of sweep ${sweep.id} were spent by a transaction that is not the sweep ` +
            `(${error.message}): the sweep failed, its ${released} other deposit(s) go to the next one; custody reconciliation shows what is missing`,
        );
      return { stage: 'FAILED', sweepId: sweep.id, txid: sweep.txid, deposits: sweep.inputs };
    }
  }

  /** The sweep's inputs still in the node's confirmed unspent outputs (one missing was spent in a block). */
  private async unspentInputs(runtime: UtxoRuntime, sweep: UtxoSweepRecord): Promise<Array<{ txid: string; vout: number }>> {
    const inputs = bitcoin.Transaction.fromHex(sweep.rawTransaction).ins.map((input) => ({
      txid: Buffer.from(input.hash).reverse().toString('hex'),
      vout: input.index,
    }));
    const values = await runtime.rpc.unspentOutputs(inputs);
    return inputs.filter((_, index) => values[index] !== null);
  }

  private async finishSwept(runtime: UtxoRuntime, sweep: UtxoSweepRecord): Promise<UtxoSweepRound> {
    const currency = NETWORK_DECLARATIONS[runtime.network].nativeCurrency;
    const fee = unitsToDecimal(sweep.amountBaseUnits - sweep.sentBaseUnits, CURRENCY_SCALE[currency]);
    const transferId = derivedTransferId(sweep.id, 'sweep-network-fee');
    const now = this.options.clock.now();
    await inPgTransaction(this.options.pool, async (client) => {
      if (!(await finishUtxoSweep(client, sweep.id, { status: 'SWEPT', feeTransferId: transferId }, now))) return;
      await postNetworkFee(client, { transferId, currency, amount: fee }, now);
    });
    this.options.log.info(`${runtime.network}: sweep ${sweep.id} confirmed (${sweep.txid}); ${fee} ${currency} paid to the miners`);
    return { stage: 'SWEPT', sweepId: sweep.id, txid: sweep.txid, deposits: sweep.inputs };
  }
}

/** Thrown inside the signing transaction to roll it back: nothing to sign after all. */
class NothingSigned extends Error {}
