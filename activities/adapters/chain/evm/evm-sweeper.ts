import type pg from 'pg';
import { erc20Abi, toHex } from 'viem';
import type { Address, PrivateKeyAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Clock } from '../../../../core/clock';
import { systemClock } from '../../../../core/clock';
import type { HDKey } from '@scure/bip32';
import { depositPrivateKey } from '../../../../core/deposit-seed';
import type { Logger } from '../../../../core/logger';
import { evmTransactionOfWithdrawal } from '../../../../db/queries/evm-transaction.queries';
import type { EvmTransactionRecord } from '../../../../db/queries/evm-transaction.queries';
import type { ConfirmationState } from '../chain-adapter';
import { transferKind } from './evm-amounts';
import { NETWORK_DECLARATIONS } from '../../../../core/networks';
import { EvmChainIdentityGuard } from './evm-chain-identity';
import type { EvmCurrency, EvmNetwork } from '../../../../core/networks';
import { confirmationStateOf, landedAttempt } from './evm-confirmation';
import { initialFees } from './evm-fee-policy';
import type { Eip1559Fees } from './evm-fee-policy';
import type { EvmNetworkConfig } from './evm-network-config';
import { EvmNetworks } from './evm-networks';
import type { EvmAdapterDependencies, EvmNetworkRuntime } from './evm-network-runtime';
import { redactingRpcUrls } from './evm-rpc-redaction';
import { sendLatest } from './evm-sending';
import { assertWalletCanPay, ensureNonceSequence, paymentInUnits, signAndStore } from './evm-signing';
import type { EvmPayment } from './evm-signing';

export interface EvmSweeperOptions {
  pool: pg.Pool;
  /** The networks whose deposit addresses are swept: the withdrawals' own configuration (node, hot wallet, token). */
  networks: Partial<Record<EvmNetwork, EvmNetworkConfig>>;
  /** The EVM deposit account's private key (m/44'/60'/0', from EVM_DEPOSIT_SEED): address i's key is its 0/i. Never logged. Without it, balances only (custody). */
  accountKey?: HDKey;
  clock?: Clock;
  log?: Logger;
  /** Checks each network's node is on its recorded chain (the worker shares one with the withdrawals and the deposit watcher); a new one when not given. */
  identityGuard?: EvmChainIdentityGuard;
  /** TEST SEAM ONLY: awaited after a sweep's transaction is committed and before it is first sent, and right after. */
  testSeams?: { afterSigning?(sweepId: string): Promise<void>; afterSending?(sweepId: string): Promise<void> };
}

/** What an address holds: the native coin in wei, the token in its smallest unit (0 without a token). */
export interface AddressBalances {
  native: bigint;
  token: bigint;
}

/**
 * Sweeps deposit addresses into the hot wallet on the withdrawals' machinery: each transaction takes its nonce from Postgres
 * and is stored signed before it is sent, so a rerun sends the stored bytes and never signs twice. A deposit address's key
 * lives only inside its signing closure. Also custody's balances, read at one block so coins in transit count once.
 * Every chain call first checks the node is on the network's recorded chain (evm-chain-identity.ts), else fails retryably.
 */
export class EvmSweeper {
  private readonly dependencies: EvmAdapterDependencies;
  private readonly evmNetworks: EvmNetworks;
  private readonly accountKey: HDKey | undefined;
  readonly testSeams: EvmSweeperOptions['testSeams'];

  constructor(options: EvmSweeperOptions) {
    this.dependencies = { pool: options.pool, clock: options.clock ?? systemClock, log: options.log };
    this.evmNetworks = new EvmNetworks(options.networks, options.identityGuard ?? new EvmChainIdentityGuard(this.dependencies));
    this.accountKey = options.accountKey;
    this.testSeams = options.testSeams;
  }

  /** Whether it holds the account key deposit addresses' keys derive from (the sweeper does). */
  canSign(): boolean {
    return this.accountKey !== undefined;
  }

  networks(): EvmNetwork[] {
    return this.evmNetworks.list();
  }

  /** The currencies held on the network: its native coin, and usdc when its token is configured. */
  currencies(network: EvmNetwork): EvmCurrency[] {
    const runtime = this.evmNetworks.configured(network);
    return runtime ? [NETWORK_DECLARATIONS[network].nativeCurrency, ...(runtime.usdcTokenAddress ? (['usdc'] as const) : [])] : [];
  }

  /** The hot wallet sweeps go to, lower case; undefined for a network not swept here. */
  hotWallet(network: EvmNetwork): string | undefined {
    return this.evmNetworks.configured(network)?.address;
  }

  /** The key of deposit address `index` (mainnet path: EVM addresses are the same on every EVM network). */
  depositSigner(index: number): PrivateKeyAccount {
    if (!this.accountKey) throw new Error('this process has no EVM_DEPOSIT_SEED: only the sweeper signs for deposit addresses');
    return privateKeyToAccount(toHex(depositPrivateKey(this.accountKey, index)));
  }

  async balances(network: EvmNetwork, address: string): Promise<AddressBalances> {
    return this.withRuntime(network, `read the balances of ${address}`, async (runtime) => {
      const [at] = await this.balancesAt(runtime, [address], undefined);
      return at!;
    });
  }

  /** The hot wallet's balances and those of `addresses`, all at one block: coins a sweep moves between them count once. */
  async custodyBalances(
    network: EvmNetwork,
    addresses: readonly string[],
  ): Promise<{ block: bigint; hotWallet: AddressBalances; addresses: AddressBalances[] }> {
    return this.withRuntime(network, 'read custody balances', async (runtime) => {
      const block = await runtime.client.getBlockNumber({ cacheTime: 0 });
      const [hotWallet, ...rest] = await this.balancesAt(runtime, [runtime.address, ...addresses], block);
      return { block, hotWallet: hotWallet!, addresses: rest };
    });
  }

  /** The node's fees for a first attempt, refused above the network's cap (nothing signed; asked again later). */
  async fees(network: EvmNetwork): Promise<Eip1559Fees> {
    return this.withRuntime(network, 'read fees for a sweep', async (runtime) =>
      initialFees(await runtime.client.estimateFeesPerGas({ type: 'eip1559' }), runtime.feePolicy),
    );
  }

  /** The gas limit a transfer of the currency is signed with. */
  async gasLimit(network: EvmNetwork, currency: EvmCurrency): Promise<bigint> {
    return this.withRuntime(network, `sign a sweep of ${currency}`, async (runtime) =>
      transferKind(currency, network).kind === 'native' ? 21_000n : runtime.tokenTransferGasLimit,
    );
  }

  /**
   * The deposit address's next nonce in Postgres and on chain (pending included). Sweeps of an address run one at a time to
   * their confirmations, so the two agree unless someone else spent from it or the node lost our transactions.
   */
  async nonces(network: EvmNetwork, address: Address): Promise<{ stored: bigint; chain: bigint }> {
    return this.withRuntime(network, `sign a sweep from ${address.toLowerCase()}`, async (runtime) => {
      await ensureNonceSequence(this.dependencies, runtime, address);
      const [stored, chain] = await Promise.all([
        this.dependencies.pool.query<{ next_nonce: string }>(
          'select next_nonce from evm_wallet_nonce where network = $1 and address = $2',
          [network, address.toLowerCase()],
        ),
        runtime.client.getTransactionCount({ address, blockTag: 'pending' }),
      ]);
      return { stored: BigInt(stored.rows[0]!.next_nonce), chain: BigInt(chain) };
    });
  }

  /** Signs and stores the sweep's transaction (the address's coins to the hot wallet) under its id; once. */
  async signSweep(
    network: EvmNetwork,
    input: {
      sweepId: string;
      signer: PrivateKeyAccount;
      currency: EvmCurrency;
      amountBaseUnits: bigint;
      hotWallet: string;
      fees: Eip1559Fees;
    },
  ): Promise<EvmTransactionRecord> {
    return this.withRuntime(network, `sign sweep ${input.sweepId}`, async (runtime) => {
      const payment = paymentInUnits(runtime, input.currency, input.hotWallet as Address, input.amountBaseUnits);
      const { record } = await signAndStore(this.dependencies, runtime, {
        id: input.sweepId,
        signer: input.signer,
        payment,
        fees: input.fees,
      });
      return record;
    });
  }

  /** Signs and stores the hot wallet's transfer of gas to a deposit address under its id; once. */
  async signGasTopUp(network: EvmNetwork, input: { id: string; address: string; amountWei: bigint }): Promise<EvmTransactionRecord> {
    return this.withRuntime(network, `sign gas top-up ${input.id}`, async (runtime) => {
      const stored = await evmTransactionOfWithdrawal(this.dependencies.pool, input.id);
      if (stored) return stored;
      const payment: EvmPayment = paymentInUnits(
        runtime,
        NETWORK_DECLARATIONS[network].nativeCurrency,
        input.address as Address,
        input.amountWei,
      );
      const fees = await this.fees(network);
      // As for a withdrawal: a top-up the hot wallet cannot pay would hold its nonce and every later one.
      await assertWalletCanPay(runtime, payment, fees);
      await ensureNonceSequence(this.dependencies, runtime, runtime.account.address);
      const { record } = await signAndStore(this.dependencies, runtime, { id: input.id, signer: runtime.account, payment, fees });
      return record;
    });
  }

  async stored(id: string): Promise<EvmTransactionRecord | undefined> {
    return evmTransactionOfWithdrawal(this.dependencies.pool, id);
  }

  /** Sends the stored transaction's latest attempt (again): "already known" or mined counts as sent. */
  async send(network: EvmNetwork, record: EvmTransactionRecord): Promise<void> {
    return this.withRuntime(network, `send sweep transaction ${record.withdrawalId}`, (runtime) => sendLatest(runtime, record));
  }

  /**
   * Where a sent transaction stands, at the withdrawals' depth; until it lands it is sent again if the node forgot it, and a
   * hot wallet's is replaced with higher fees. A deposit address's never is: its value was worked out for its fees.
   */
  async state(network: EvmNetwork, record: EvmTransactionRecord): Promise<{ state: ConfirmationState; landedHash: string | undefined }> {
    return this.withRuntime(network, `settle on sweep transaction ${record.withdrawalId}`, async (runtime) => {
      const state = await confirmationStateOf(this.dependencies, runtime, record);
      if (state === 'PENDING') return { state, landedHash: undefined };
      const landed = await landedAttempt(runtime, record);
      return { state, landedHash: landed?.attempt.transactionHash };
    });
  }

  /** What the transaction's landed attempt paid for its gas, in wei (gas used × the price paid per unit); 0 while none landed. */
  async gasPaid(network: EvmNetwork, record: EvmTransactionRecord): Promise<bigint> {
    return this.withRuntime(network, `read sweep transaction ${record.withdrawalId}`, async (runtime) => {
      const landed = await landedAttempt(runtime, record);
      return landed ? landed.receipt.gasUsed * landed.receipt.effectiveGasPrice : 0n;
    });
  }

  private async balancesAt(
    runtime: EvmNetworkRuntime,
    addresses: readonly string[],
    block: bigint | undefined,
  ): Promise<AddressBalances[]> {
    const at = block === undefined ? { blockTag: 'latest' as const } : { blockNumber: block };
    const token = runtime.usdcTokenAddress;
    const results: AddressBalances[] = [];
    // A few at a time: custody reads up to a few hundred addresses per network.
    for (let start = 0; start < addresses.length; start += BALANCE_CONCURRENCY) {
      const batch = addresses.slice(start, start + BALANCE_CONCURRENCY);
      results.push(
        ...(await Promise.all(
          batch.map(async (address) => {
            const [native, tokens] = await Promise.all([
              runtime.client.getBalance({ address: address as Address, ...at }),
              token
                ? runtime.client.readContract({
                    address: token,
                    abi: erc20Abi,
                    functionName: 'balanceOf',
                    args: [address as Address],
                    ...at,
                  })
                : Promise.resolve(0n),
            ]);
            return { native, token: tokens };
          }),
        )),
      );
    }
    return results;
  }

  /** `work` on the network's runtime once its node is checked (`action` names what is refused), RPC URLs redacted from errors. */
  private withRuntime<T>(network: EvmNetwork, action: string, work: (runtime: EvmNetworkRuntime) => Promise<T>): Promise<T> {
    return redactingRpcUrls(this.evmNetworks.rpcUrls, async () => {
      const runtime = this.evmNetworks.configured(network);
      // Retryable: in a rolling deploy a process that has the network's settings takes the next attempt.
      if (!runtime) throw new Error(`this process has no node of ${network} (EVM_RPC_URL_${network.toUpperCase()})`);
      return work(await this.evmNetworks.checked(runtime, action));
    });
  }
}

const BALANCE_CONCURRENCY = 8;
