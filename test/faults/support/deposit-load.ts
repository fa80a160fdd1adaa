import type { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { createTestClient, createWalletClient, erc20Abi, http, parseAbi, parseEther, parseUnits, publicActions } from 'viem';
import type { Address, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { PrivateKeyAccount } from 'viem/accounts';
import { receiveSimulatedCredit } from '../../../activities/adapters/bank/simulated-bank-credits';
import { DomainError } from '../../../core/errors';
import { isDatabaseUnavailable } from '../../../db/connection-settings';
import { newIban } from '../../../db/services/account-identifiers';
import { localChain } from '../../../dev/evm-node';
import type { RunningEvmNode } from '../../../dev/evm-node';
import { returnIncomingCredit } from '../../../operations/operator/incoming-sepa-credit';
import { OperatorActionRefused } from '../../../operations/operator/operator-refusal';
import type { TestPartner } from '../../support/fixtures';

/**
 * The money that comes in during a phase, beside the callers' operations: deposits to one partner
 * of the phase's own (so its balances are exactly what came in), made from outside the service.
 * - On chain: an independent client (viem, a key of the campaign's own, funded by the node's test
 *   methods) sends eth and usdc to the partner's deposit addresses one after another, now and then
 *   below the network's minimum. `reorganise()` makes a deposit that a reorganisation removes.
 * - At the bank: credits arrive at the simulated bank (the function behind `npm run ops -- bank
 *   receive`), most to the partner's IBAN, one in three delivered a second time, one in four to an
 *   IBAN no partner has; those are sent back to their debtor as an operator would (`bank return`).
 *   While Postgres is down (the simulated bank's state is there) a credit waits and is delivered
 *   again, with its entry reference: a bank's retry, which must not credit twice either.
 */

export type ChainCurrency = 'eth' | 'usdc';

/** A transfer the client sent to the partner's address. Whether it is on chain is asked of the node when checking. */
export interface SentChainDeposit {
  hash: Hex;
  currency: ChainCurrency;
  /** Exact decimal text. */
  amount: string;
  belowMinimum: boolean;
  /** Sent to be removed by a reorganisation (reorganise()). */
  forReorganisation: boolean;
}

/** A credit the simulated bank booked (or is still to book: `deliveries` 0). */
export interface SentBankCredit {
  entryRef: string;
  /** Two decimals. */
  amount: string;
  /** To the partner's IBAN (credited), or to an IBAN nobody has (UNMATCHED, then returned). */
  matched: boolean;
  iban: string;
  /** Notifications the simulated bank recorded for it. */
  deliveries: number;
  /** How many it should get: 1, or 2 for one in three of the partner's. */
  wantedDeliveries: number;
  /** The bank tick at which its next delivery is due (a second one three ticks after the first). */
  dueAtTick: number;
  returnRequested: boolean;
}

const DEBTOR = { debtorName: 'Fault Campaign Debtor', debtorIban: 'DE89370400440532013000' } as const;
const MINT_ABI = parseAbi(['function mint(address to, uint256 value)']);
/** Below the seeded network_config minimums of ethereum (eth 0.0005, usdc 5). */
const BELOW_MINIMUM: Record<ChainCurrency, string> = { eth: '0.0001', usdc: '1' };

export interface DepositLoadOptions {
  evm: RunningEvmNode;
  orm: MikroORM;
  databaseUrl: string;
  partner: TestPartner;
  /** Entry reference prefix: the phase's, so entries of two phases never meet (letters and digits). */
  label: string;
  chainEveryMs?: number;
  bankEveryMs?: number;
}

export class DepositLoad {
  readonly chain: SentChainDeposit[] = [];
  readonly bank: SentBankCredit[] = [];
  /** Failures of the load itself (the node refused a transfer, the simulated bank refused a credit): reported, not retried. */
  readonly errors: string[] = [];
  /** Reorganisations made, and how many of them the watcher had read past (so had to rewind). */
  readonly reorganisations = { made: 0, readPast: 0 };
  private stopping = false;
  private loops: Promise<void>[] = [];
  /** Held while a reorganisation is made: the chain loop sends nothing and the miner mines nothing meanwhile. */
  private chainPaused: Promise<void> | undefined;
  private chainIdle: Promise<void> = Promise.resolve();
  private minerIdle: Promise<void> = Promise.resolve();
  private mining = false;
  private miner: Promise<void> = Promise.resolve();
  private counter = 0;
  private tick = 0;
  private readonly client;
  private readonly sender: PrivateKeyAccount;
  private readonly pool: pg.Pool;

  private constructor(private readonly options: DepositLoadOptions) {
    const { evm } = options;
    this.client = createTestClient({
      chain: localChain(evm.chainId, evm.rpcUrl),
      mode: 'hardhat',
      cacheTime: 0,
      transport: http(evm.rpcUrl),
    }).extend(publicActions);
    this.sender = privateKeyToAccount(generatePrivateKey());
    this.pool = new pg.Pool({ connectionString: options.databaseUrl, max: 1 });
    this.pool.on('error', () => undefined);
  }

  /** A sender of its own, with ether and test USDC (minted by the token's owner). */
  static async prepare(options: DepositLoadOptions): Promise<DepositLoad> {
    const load = new DepositLoad(options);
    const { evm } = options;
    await load.client.setBalance({ address: load.sender.address, value: parseEther('1000') });
    const owner = createWalletClient({
      chain: load.client.chain,
      transport: http(evm.rpcUrl),
      account: privateKeyToAccount(evm.usdcOwnerPrivateKey),
    });
    const minted = await owner.writeContract({
      address: evm.usdcAddress,
      abi: MINT_ABI,
      functionName: 'mint',
      args: [load.sender.address, parseUnits('1000000', 6)],
    });
    await load.client.waitForTransactionReceipt({ hash: minted, pollingInterval: 100 });
    return load;
  }

  /** The deposits, and the miner: it goes on (deposits gain their confirmations) until close(). */
  start(): void {
    this.mining = true;
    this.miner = this.mineLoop();
    this.loops = [this.chainLoop(), this.bankLoop()];
  }

  /** Stops making deposits; the last bank credits still to deliver (and returns to ask for) are tried for up to `drainMs`. */
  async stop(drainMs = 30_000): Promise<void> {
    this.stopping = true;
    await Promise.all(this.loops);
    const deadline = Date.now() + drainMs;
    while (Date.now() < deadline && this.bankWork().length > 0) {
      await this.bankStep(false);
      await sleep(500);
    }
  }

  async close(): Promise<void> {
    this.mining = false;
    await this.miner;
    await this.pool.end();
  }

  /**
   * A block a second besides one per transaction, as `npm start`'s node mines, so that deposits
   * reach their confirmations while nothing else is sent. Mined from here rather than by the
   * node's interval mining, which reorganise() must stop: Hardhat does not start it again.
   */
  private async mineLoop(): Promise<void> {
    while (this.mining) {
      while (this.chainPaused) await this.chainPaused;
      let done!: () => void;
      this.minerIdle = new Promise((resolve) => (done = resolve));
      try {
        await this.client.mine({ blocks: 1 });
      } catch (error) {
        this.errors.push(`mining: ${error instanceof Error ? error.message.split('\n')[0]! : String(error)}`);
      } finally {
        done();
      }
      await sleep(1_000);
    }
  }

  /** Deposits sent that the chain still holds, read from the node (a receipt that says success). */
  async onChain(deposit: SentChainDeposit): Promise<boolean> {
    try {
      const receipt = await this.client.getTransactionReceipt({ hash: deposit.hash });
      return receipt.status === 'success';
    } catch {
      return false;
    }
  }

  /**
   * A deposit the chain takes back: with the chain loop and the miner paused, a snapshot, an eth
   * deposit (mined alone: one confirmation, never the three it needs), a wait until the watcher
   * has read its block (up to `readWithinMs`: a watcher stalled by a kill may not), then back to
   * the snapshot and two new blocks at those heights. The deposit must end UNSUCCESSFUL, never
   * credited. Resolves with whether the watcher had read its block (and so had to rewind).
   */
  async reorganise(readWithinMs: number): Promise<boolean> {
    let release!: () => void;
    this.chainPaused = new Promise((resolve) => (release = resolve));
    try {
      await Promise.all([this.chainIdle, this.minerIdle]);
      const snapshot = await this.client.snapshot();
      const amount = this.amount('eth');
      const hash = await this.send('eth', amount, true);
      const receipt = await this.client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
      const deadline = Date.now() + readWithinMs;
      let readPast = false;
      while (!readPast && Date.now() < deadline) {
        readPast = await this.cursorAtLeast(receipt.blockNumber);
        if (!readPast) await sleep(200);
      }
      await this.client.revert({ id: snapshot });
      await this.client.mine({ blocks: 2 });
      this.reorganisations.made += 1;
      if (readPast) this.reorganisations.readPast += 1;
      return readPast;
    } finally {
      this.chainPaused = undefined;
      release();
    }
  }

  private async cursorAtLeast(block: bigint): Promise<boolean> {
    try {
      const result = await this.pool.query<{ last_block: string }>(
        `select last_block::text from evm_deposit_cursor where network = 'ethereum'`,
      );
      const last = result.rows[0]?.last_block;
      return last !== undefined && BigInt(last) >= block;
    } catch {
      return false; // the database may be down
    }
  }

  /** eth and usdc in turn, every seventh (from the fourth) below the minimum; amounts vary so that a double credit shows in the balance. */
  private async chainLoop(): Promise<void> {
    const every = this.options.chainEveryMs ?? 1_200;
    for (let turn = 0; !this.stopping; turn += 1) {
      while (this.chainPaused) await this.chainPaused;
      let done!: () => void;
      this.chainIdle = new Promise((resolve) => (done = resolve));
      try {
        const currency: ChainCurrency = turn % 2 === 0 ? 'eth' : 'usdc';
        const belowMinimum = turn % 7 === 3;
        const amount = belowMinimum ? BELOW_MINIMUM[currency] : this.amount(currency);
        const hash = await this.send(currency, amount, false, belowMinimum);
        await this.client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
      } catch (error) {
        this.errors.push(error instanceof Error ? error.message.split('\n')[0]! : String(error));
      } finally {
        done();
      }
      await sleep(every);
    }
  }

  private amount(currency: ChainCurrency): string {
    this.counter += 1;
    const units = 1_000 + ((this.counter * 7_919) % 9_000);
    // eth: 0.001000 to 0.009999; usdc: 10.00 to 99.99.
    return currency === 'eth' ? (units / 1_000_000).toFixed(6) : (units / 100).toFixed(2);
  }

  private async send(currency: ChainCurrency, amount: string, forReorganisation: boolean, belowMinimum = false): Promise<Hex> {
    const wallet = createWalletClient({ chain: this.client.chain, transport: http(this.options.evm.rpcUrl), account: this.sender });
    const hash =
      currency === 'eth'
        ? await wallet.sendTransaction({ to: this.address('eth'), value: parseEther(amount) })
        : await wallet.writeContract({
            address: this.options.evm.usdcAddress,
            abi: erc20Abi,
            functionName: 'transfer',
            args: [this.address('usdc'), parseUnits(amount, 6)],
          });
    this.chain.push({ hash, currency, amount, belowMinimum, forReorganisation });
    return hash;
  }

  private address(currency: ChainCurrency): Address {
    const wallet = this.options.partner.accounts[currency].walletAddress;
    if (!wallet) throw new Error(`the partner's ${currency} account has no wallet address`);
    return wallet as Address;
  }

  private async bankLoop(): Promise<void> {
    const every = this.options.bankEveryMs ?? 1_500;
    while (!this.stopping) {
      await this.bankStep(true);
      await sleep(every);
    }
  }

  /** Credits still to deliver (a first or second time), and unmatched ones whose return is still to be asked for. */
  private bankWork(): SentBankCredit[] {
    return this.bank.filter((credit) => credit.deliveries < credit.wantedDeliveries || (!credit.matched && !credit.returnRequested));
  }

  /** One tick: a new credit (when `fresh`), then whatever is owed and due: deliveries, second deliveries, returns. */
  private async bankStep(fresh: boolean): Promise<void> {
    this.tick += 1;
    if (fresh) {
      const n = this.bank.length + 1;
      const matched = n % 4 !== 0;
      this.bank.push({
        entryRef: `FLT${this.options.label}N${n}`,
        amount: ((100 + ((n * 3_761) % 9_900)) / 100).toFixed(2),
        matched,
        iban: matched ? this.partnerIban() : newIban(),
        deliveries: 0,
        wantedDeliveries: matched && n % 3 === 0 ? 2 : 1,
        dueAtTick: this.tick,
        returnRequested: false,
      });
    }
    for (const credit of this.bankWork()) {
      try {
        if (credit.deliveries < credit.wantedDeliveries) {
          if (fresh && credit.dueAtTick > this.tick) continue;
          await this.options.orm.em.fork().transactional((em) =>
            receiveSimulatedCredit(
              em,
              {
                accountIban: credit.iban,
                amount: credit.amount,
                ...DEBTOR,
                remittance: `fault campaign ${credit.entryRef}`,
                entryRef: credit.entryRef,
              },
              new Date(),
            ),
          );
          credit.deliveries += 1;
          credit.dueAtTick = this.tick + 3;
        } else if (!credit.matched && !credit.returnRequested) {
          await this.options.orm.em.fork().transactional((em) => returnIncomingCredit(em, credit.entryRef, new Date()));
          credit.returnRequested = true;
        }
      } catch (error) {
        // Asked before (its commit's answer lost): the return is under way.
        if (error instanceof OperatorActionRefused && error.reason === 'already-resolved') credit.returnRequested = true;
        // Not ingested yet (no credit under that reference to return), or the database is down: next tick.
        else if (!(error instanceof DomainError && error.kind === 'not-found') && !isDatabaseDown(error)) {
          this.errors.push(`${credit.entryRef}: ${error instanceof Error ? error.message : String(error)}`);
          credit.wantedDeliveries = credit.deliveries;
          credit.returnRequested = true;
        }
      }
    }
  }

  private partnerIban(): string {
    const iban = this.options.partner.accounts.eur.iban;
    if (!iban) throw new Error("the partner's EUR account has no IBAN");
    return iban;
  }
}

/** What a write meets while Postgres is killed or recovering: retried at the next tick. */
function isDatabaseDown(error: unknown): boolean {
  if (isDatabaseUnavailable(error)) return true;
  const code = (error as { code?: unknown } | null)?.code;
  const text = error instanceof Error ? `${error.name} ${error.message} ${typeof code === 'string' ? code : ''}` : String(error);
  return /ECONNREFUSED|ECONNRESET|EPIPE|terminat|Connection|connect|57P0[123]|shutting down|recovery|timeout/i.test(text);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
