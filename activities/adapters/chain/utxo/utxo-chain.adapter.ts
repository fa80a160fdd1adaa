import * as bitcoin from 'bitcoinjs-lib';
import type pg from 'pg';
import type { Clock } from '../../../../core/clock';
import { systemClock } from '../../../../core/clock';
import type { Logger } from '../../../../core/logger';
import { CURRENCY_SCALE } from '../../../../core/currencies';
import { unitsToDecimal } from '../../../../core/money';
import { NETWORK_DECLARATIONS, isEvmNetwork } from '../../../../core/networks';
import type { Network, UtxoNetwork } from '../../../../core/networks';
import { inPgTransaction } from '../../../../db/pg-transaction';
import {
  ensureUtxoWallet,
  findSpendableCoins,
  lockUtxoWalletForSigning,
  recordUtxoConflict,
  storeSignedUtxoTransaction,
  storeUtxoReplacement,
  utxoTransactionByTxid,
  utxoTransactionOfWithdrawal,
} from '../../../../db/queries/utxo-wallet.queries';
import type { UtxoTransactionRecord } from '../../../../db/queries/utxo-wallet.queries';
import type { EvmChainIdentityGuard } from '../evm/evm-chain-identity';
import type { BroadcastRequest, BroadcastResult, ConfirmationState } from '../chain-adapter';
import type { NetworkAdapter } from '../chain-router';
import type { ScanDependencies, ScanResult } from './utxo-block-scanner';
import { SharedBlockReads } from './utxo-shared-block-reads';
import { CHANGE, UtxoHotWallet } from './utxo-hot-wallet';
import { UtxoRpc, UtxoRpcError } from './utxo-rpc';
import { baseUnits, changeDustLimit, dustLimit, outputScript, selectCoins, signTransaction } from './utxo-transaction-builder';
import { chainModeOfNode, configuredChainMode } from './utxo-chain-mode';
import type { SpendableCoin } from './utxo-transaction-builder';

export interface UtxoNetworkConfig {
  /** http://user:password@host:port of a node with a transaction index. */
  rpcUrl: string;
  /** The hot wallet's BIP32 account extended private key. */
  hotWalletKey: string;
  requiredConfirmations: number;
  /** Base units per virtual byte: the node's estimate is held between them; the floor when it has none. */
  feeRateFloor: number;
  feeRateCeiling: number;
  /** An unconfirmed transaction is replaced with a 25% higher fee rate after this. */
  replaceAfterMs: number;
  /** The first block the wallet's scanner reads: the wallet's birth. */
  scanFromHeight: number;
}

export interface UtxoChainAdapterOptions {
  pool: pg.Pool;
  networks: Partial<Record<UtxoNetwork, UtxoNetworkConfig>>;
  identityGuard: EvmChainIdentityGuard;
  clock?: Clock;
  log?: Logger;
}

/** A network's checked node and its wallet: what the adapter and the deposits' sweeper sign and send with. */
export interface UtxoRuntime {
  network: UtxoNetwork;
  config: UtxoNetworkConfig;
  rpc: UtxoRpc;
  wallet: UtxoHotWallet;
}

/** Coins considered per signing (the largest), more than a withdrawal needs; blocks read before it, so new coins count. */
const COINS_CONSIDERED = 500;
const BLOCKS_READ_BEFORE_SIGNING = 500;
/** The fee estimate's target, in blocks. */
const FEE_TARGET_BLOCKS = 3;
/** Replacement fee rate over the replaced one (BIP 125 needs more; a quarter gets past relay floors on every chain). */
const REPLACEMENT_FACTOR = 1.25;

/** What a node answers to a transaction it already has (Bitcoin Core, Litecoin Core, btcd). */
export const ALREADY_KNOWN =
  /already in (the )?block ?chain|already have transaction|txn-already-known|txn-already-in-mempool|already exists|outputs already in utxo set/i;
/** What it answers when an input is gone: spent by another transaction, or never seen. */
export const INPUTS_GONE = /missing ?inputs|missingorspent|bad-txns-inputs|txn-mempool-conflict|orphan|already been spent|already spent/i;

/**
 * Withdrawals on the UTXO networks (bitcoin, litecoin; dogecoin once it has a node), from the hot wallet's coins in
 * Postgres. Exactly once on chain:
 * - broadcast() locks the wallet, selects coins, signs, and stores the bytes with the inputs taken in one transaction, and
 *   only then sends; a retry sends the same bytes. Twenty concurrent withdrawals take twenty sets of coins.
 * - A replacement spends the same inputs (higher fee, less change); sharing them, at most one attempt can land.
 * - confirmationState() answers at the configured depth; a transaction no longer known to the node (a reorganisation, an
 *   eviction) is sent again; one whose inputs were spent elsewhere is recorded as a conflict and stays pending: a finding for
 *   an operator, never a release.
 * - The node must be on the network's recorded chain and the chain network_config names (mainnet, testnet or regtest).
 */
export class UtxoChainAdapter implements NetworkAdapter {
  private readonly runtimes = new Map<UtxoNetwork, Promise<UtxoRuntime>>();
  private readonly blockReads = new SharedBlockReads();
  private readonly clock: Clock;

  constructor(private readonly options: UtxoChainAdapterOptions) {
    this.clock = options.clock ?? systemClock;
    if (Object.keys(options.networks).length === 0) throw new Error('UtxoChainAdapter needs at least one network');
  }

  serves(network: Network): boolean {
    return !isEvmNetwork(network) && this.options.networks[network] !== undefined;
  }

  async broadcast(request: BroadcastRequest): Promise<BroadcastResult> {
    const runtime = await this.runtime(request.network, `broadcast withdrawal ${request.withdrawalId}`);
    const amount = baseUnits(request.amount, runtime.network);
    const stored = await utxoTransactionOfWithdrawal(this.options.pool, request.withdrawalId);
    const record = stored ? checkSame(stored, request, amount) : await this.signFirst(runtime, request, amount);
    await this.send(runtime, record, record.attempts.at(-1)!.rawTransaction);
    return { transactionHash: record.attempts[0]!.txid, broadcastAt: record.createdAt.toISOString() };
  }

  async confirmationState(request: { network: Network; transactionHash: string }): Promise<ConfirmationState> {
    const runtime = await this.runtime(request.network, `settle on transaction ${request.transactionHash}`);
    const record = await this.recordByTxid(runtime, request.transactionHash);
    let known = false;
    for (const attempt of [...record.attempts].reverse()) {
      const state = await runtime.rpc.transaction(attempt.txid);
      if (!state) continue;
      known = true;
      if (state.blockHash !== null && state.confirmations >= runtime.config.requiredConfirmations) return 'CONFIRMED';
      if (state.blockHash !== null) return 'PENDING';
    }
    const latest = record.attempts.at(-1)!;
    if (!known) {
      // Not in a block nor the mempool: dropped by a reorganisation or evicted. The same bytes again, newest attempt first;
      // when the node takes none (evicted for its fee), a replacement with a higher one.
      this.options.log?.warn(`${runtime.network}: no attempt of withdrawal ${record.withdrawalId} is known to the node; sending again`);
      let refusal: unknown;
      for (const attempt of [...record.attempts].reverse()) {
        try {
          await this.send(runtime, record, attempt.rawTransaction);
          return 'PENDING';
        } catch (error) {
          refusal = error;
        }
      }
      if (await this.replace(runtime, record)) return 'PENDING';
      throw refusal;
    }
    if (this.clock.now().getTime() - latest.signedAt.getTime() >= runtime.config.replaceAfterMs) await this.replace(runtime, record);
    return 'PENDING';
  }

  async landedTransactionHash(request: { network: Network; transactionHash: string }): Promise<string | null> {
    const runtime = await this.runtime(request.network, `read transaction ${request.transactionHash}`);
    const record = await this.recordByTxid(runtime, request.transactionHash);
    for (const attempt of record.attempts) {
      const state = await runtime.rpc.transaction(attempt.txid);
      if (state?.blockHash) return attempt.txid;
    }
    return null;
  }

  /** The fee of the attempt that is in a block: the inputs' value less the outputs', stored when it was signed. */
  async networkFee(request: { network: Network; transactionHash: string }): Promise<string> {
    const runtime = await this.runtime(request.network, `read transaction ${request.transactionHash}`);
    const record = await this.recordByTxid(runtime, request.transactionHash);
    for (const attempt of record.attempts) {
      if ((await runtime.rpc.transaction(attempt.txid))?.blockHash)
        return unitsToDecimal(attempt.fee, CURRENCY_SCALE[NETWORK_DECLARATIONS[runtime.network].nativeCurrency]);
    }
    throw new Error(`no attempt of transaction ${request.transactionHash} is in a block: its fee is not known yet`);
  }

  networks(): UtxoNetwork[] {
    return Object.keys(this.options.networks) as UtxoNetwork[];
  }

  /**
   * Custody reconciliation's read: each output's value in the node's confirmed unspent set (null when spent or unknown), the
   * height it answered at, and the wallet's receiving address.
   */
  async unspentOutputs(
    network: UtxoNetwork,
    outputs: ReadonlyArray<{ txid: string; vout: number }>,
  ): Promise<{ height: number; receivingAddress: string; values: Array<string | null> }> {
    const runtime = await this.runtime(network, 'read custody');
    const height = await runtime.rpc.blockCount();
    return { height, receivingAddress: runtime.wallet.receivingAddress, values: await runtime.rpc.unspentOutputs(outputs) };
  }

  /** The wallet's receiving address on a network (what operators fund), once its node is checked. */
  async receivingAddress(network: UtxoNetwork): Promise<string> {
    return (await this.runtime(network, 'read the hot wallet')).wallet.receivingAddress;
  }

  /** Reads new blocks for the wallet's coins (also done before each signing), in reads every caller shares. */
  async scan(network: UtxoNetwork, maxBlocks: number, onBlock?: () => void): Promise<ScanResult> {
    const runtime = await this.runtime(network, 'read blocks');
    return this.blockReads.read(this.scanDependencies(runtime), maxBlocks, onBlock);
  }

  private scanDependencies(runtime: UtxoRuntime): ScanDependencies {
    const currency = NETWORK_DECLARATIONS[runtime.network].nativeCurrency;
    return {
      pool: this.options.pool,
      rpc: runtime.rpc,
      network: runtime.network,
      now: () => this.clock.now(),
      log: this.options.log,
      fromHeight: runtime.config.scanFromHeight,
      parameters: runtime.wallet.parameters,
      currency,
      minimumDeposit: async () => {
        const { rows } = await this.options.pool.query<{ minimum: string }>(
          `select min_deposit::text as minimum from network_config where network = $1 and currency = $2`,
          [runtime.network, currency],
        );
        return rows[0]?.minimum;
      },
    };
  }

  private async signFirst(runtime: UtxoRuntime, request: BroadcastRequest, amount: bigint): Promise<UtxoTransactionRecord> {
    const destination = outputScript(runtime.wallet, runtime.network, request.destination);
    if (amount < dustLimit(runtime.network, destination))
      throw new Error(`withdrawal ${request.withdrawalId}: ${request.amount} is below the dust limit`);
    await this.blockReads.read(this.scanDependencies(runtime), BLOCKS_READ_BEFORE_SIGNING);
    const feeRate = await this.feeRate(runtime);
    const createdAt = this.clock.now();
    await inPgTransaction(this.options.pool, async (client) => {
      const { changeIndex } = await lockUtxoWalletForSigning(client, runtime.network);
      // Under the lock: a concurrent retry of the same withdrawal signed first.
      if (await utxoTransactionOfWithdrawal(client, request.withdrawalId)) return;
      const coins = await findSpendableCoins(client, runtime.network, COINS_CONSIDERED, runtime.config.requiredConfirmations);
      const selection = selectCoins(runtime.wallet, coins, destination, amount, feeRate, changeDustLimit(runtime.network, runtime.wallet));
      if (!selection) {
        const held = coins.reduce((sum, coin) => sum + coin.value, 0n);
        throw new Error(
          `the ${runtime.network} hot wallet's spendable coins (${coins.length}, ${held} base units) do not cover ${amount} and the fee at ` +
            `${feeRate}/vB: fund ${runtime.wallet.receivingAddress}; the withdrawal is sent once they do`,
        );
      }
      const changeKey = { chain: CHANGE, index: changeIndex };
      const change = selection.change > 0n ? { key: changeKey, value: selection.change } : null;
      const signed = signTransaction(runtime.wallet, selection.inputs, destination, amount, change);
      await storeSignedUtxoTransaction(client, {
        withdrawalId: request.withdrawalId,
        network: runtime.network,
        destination: request.destination,
        amount,
        createdAt,
        attempt: {
          txid: signed.txid,
          rawTransaction: signed.rawTransaction,
          fee: signed.fee,
          feeRate: signed.feeRate,
          signedAt: createdAt,
        },
        inputs: signed.inputs,
        changeScript: change ? { hex: Buffer.from(runtime.wallet.script(changeKey)).toString('hex'), index: changeIndex } : null,
      });
    });
    const record = await utxoTransactionOfWithdrawal(this.options.pool, request.withdrawalId);
    if (!record) throw new Error(`withdrawal ${request.withdrawalId} was signed but is not stored`);
    return checkSame(record, request, amount);
  }

  /** Same inputs, same destination and amount, a higher fee from the change; none when there is no change to take it from. */
  private async replace(runtime: UtxoRuntime, record: UtxoTransactionRecord): Promise<boolean> {
    const latest = record.attempts.at(-1)!;
    const previous = bitcoin.Transaction.fromHex(latest.rawTransaction);
    const changeOutput = previous.outs[1];
    const rate = Math.ceil(Math.max(latest.feeRate * REPLACEMENT_FACTOR, latest.feeRate + 1, await this.feeRate(runtime)));
    if (!changeOutput || rate > runtime.config.feeRateCeiling || record.attempts.length >= 100) return false;
    // BIP 125: the new fee pays for the new transaction at the higher rate (its size is the old one's: same inputs and outputs).
    const extra = BigInt(Math.ceil(rate * previous.virtualSize())) - latest.fee;
    const change = changeOutput.value - extra;
    if (extra <= 0n || change < changeDustLimit(runtime.network, runtime.wallet)) return false;
    const inputs = await this.inputsOf(runtime, previous, record.withdrawalId);
    const changeKey = await this.changeKeyOf(runtime, changeOutput.script);
    const signed = signTransaction(runtime.wallet, inputs, previous.outs[0]!.script, record.amount, { key: changeKey, value: change });
    const signedAt = this.clock.now();
    await storeUtxoReplacement(this.options.pool, record.withdrawalId, latest.attempt + 1, {
      txid: signed.txid,
      rawTransaction: signed.rawTransaction,
      fee: signed.fee,
      feeRate: signed.feeRate,
      signedAt,
    });
    this.options.log?.info(
      `${runtime.network}: withdrawal ${record.withdrawalId} replaced by ${signed.txid} at ${signed.feeRate.toFixed(1)}/vB`,
    );
    const stored = await utxoTransactionOfWithdrawal(this.options.pool, record.withdrawalId);
    await this.send(runtime, stored!, signed.rawTransaction);
    return true;
  }

  private async inputsOf(runtime: UtxoRuntime, transaction: bitcoin.Transaction, withdrawalId: string): Promise<SpendableCoin[]> {
    const outpoints = transaction.ins.map((input) => ({ txid: Buffer.from(input.hash).reverse().toString('hex'), vout: input.index }));
    const { rows } = await this.options.pool.query<{ txid: string; vout: number; value: string; chain: 0 | 1; index: number }>(
      `select c.txid, c.vout, c.value_base_units::text as value, s.key_chain as chain, s.key_index as index
         from utxo_coin c join utxo_wallet_script s using (network, script_hex)
        where c.network = $1 and c.reserved_for = $2`,
      [runtime.network, withdrawalId],
    );
    return outpoints.map((outpoint) => {
      const row = rows.find((each) => each.txid === outpoint.txid && each.vout === outpoint.vout);
      if (!row) throw new Error(`withdrawal ${withdrawalId}: input ${outpoint.txid}:${outpoint.vout} is not a coin it took`);
      return { txid: row.txid, vout: row.vout, value: BigInt(row.value), chain: row.chain, index: row.index };
    });
  }

  private async changeKeyOf(runtime: UtxoRuntime, script: Uint8Array) {
    const { rows } = await this.options.pool.query<{ index: number }>(
      `select key_index as index from utxo_wallet_script where network = $1 and script_hex = $2 and key_chain = 1`,
      [runtime.network, Buffer.from(script).toString('hex')],
    );
    if (!rows[0]) throw new Error(`${runtime.network}: a change output pays a script that is not the wallet's`);
    return { chain: CHANGE, index: rows[0].index };
  }

  /**
   * Sends the bytes. A node that has them, or any attempt of the withdrawal (in a block or its mempool), is a success: that
   * attempt is the one that counts. Inputs spent by a transaction none of them is are a recorded conflict; any other refusal
   * is retried (never a release: the bytes may be on other nodes).
   */
  private async send(runtime: UtxoRuntime, record: UtxoTransactionRecord, rawTransaction: string): Promise<void> {
    try {
      await runtime.rpc.send(rawTransaction);
    } catch (error) {
      if (!(error instanceof UtxoRpcError)) throw error;
      if (ALREADY_KNOWN.test(error.message)) return;
      for (const attempt of record.attempts) {
        if (await runtime.rpc.transaction(attempt.txid)) {
          if (attempt.rawTransaction !== rawTransaction)
            this.options.log?.warn(
              `${runtime.network}: attempt ${attempt.txid} of withdrawal ${record.withdrawalId} holds its inputs (${error.message})`,
            );
          return;
        }
      }
      if (INPUTS_GONE.test(error.message)) {
        await recordUtxoConflict(this.options.pool, record.withdrawalId, error.message, this.clock.now());
        this.options.log?.error(
          `${runtime.network}: an input of withdrawal ${record.withdrawalId} was spent by a transaction that is not its own (${error.message}): ` +
            'it stays pending; reconciliation reports it (utxoInputConflicts)',
        );
      }
      throw new Error(`${runtime.network} refused withdrawal ${record.withdrawalId}'s transaction: ${error.message}`);
    }
  }

  /** The node's estimate for a few blocks, held between the network's floor and ceiling. */
  async feeRate(runtime: UtxoRuntime): Promise<number> {
    const estimate = await runtime.rpc.feeRate(FEE_TARGET_BLOCKS);
    const { feeRateFloor, feeRateCeiling } = runtime.config;
    return Math.ceil(Math.min(feeRateCeiling, Math.max(feeRateFloor, estimate ?? feeRateFloor)));
  }

  private async recordByTxid(runtime: UtxoRuntime, txid: string): Promise<UtxoTransactionRecord> {
    const record = await utxoTransactionByTxid(this.options.pool, txid);
    if (!record) throw new Error(`transaction ${txid} was not broadcast by this service`);
    if (record.network !== runtime.network) throw new Error(`transaction ${txid} is on ${record.network}, not ${runtime.network}`);
    return record;
  }

  /** The network's runtime, its node checked for the recorded chain at every use; the wallet's row made at first use. */
  async runtime(network: Network, action: string): Promise<UtxoRuntime> {
    const config = !isEvmNetwork(network) ? this.options.networks[network] : undefined;
    if (isEvmNetwork(network) || !config) throw new Error(`the UTXO adapter is not configured for ${network}`);
    let made = this.runtimes.get(network);
    if (!made) {
      made = this.makeRuntime(network, config);
      this.runtimes.set(network, made);
      made.catch(() => this.runtimes.delete(network));
    }
    const runtime = await made;
    await this.options.identityGuard.verify(network, { getChainId: async () => 0, genesisHash: () => runtime.rpc.genesisHash() }, action);
    return runtime;
  }

  private async makeRuntime(network: UtxoNetwork, config: UtxoNetworkConfig): Promise<UtxoRuntime> {
    const rpc = new UtxoRpc(config.rpcUrl);
    const mode = await configuredChainMode(this.options.pool, network);
    const info = await rpc.call<{ chain?: unknown }>('getblockchaininfo');
    const nodeMode = chainModeOfNode(info?.chain);
    if (nodeMode !== mode) {
      throw new Error(
        `the ${network} node is on ${String(info?.chain)}, but network_config says ${network} is ${mode}: refusing to use it`,
      );
    }
    const wallet = new UtxoHotWallet(network, config.hotWalletKey, mode);
    await ensureUtxoWallet(
      this.options.pool,
      network,
      wallet.accountPublicKey,
      Buffer.from(wallet.script({ chain: 0, index: 0 })).toString('hex'),
    );
    return { network, config, rpc, wallet };
  }
}

/** A retry must be the same payment: another destination or amount under the same withdrawal id is refused. */
function checkSame(record: UtxoTransactionRecord, request: BroadcastRequest, amount: bigint): UtxoTransactionRecord {
  if (record.network !== request.network || record.destination !== request.destination || record.amount !== amount) {
    throw new Error(`withdrawal ${request.withdrawalId} was already signed with different details`);
  }
  return record;
}
