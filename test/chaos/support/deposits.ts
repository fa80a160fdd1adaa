import { createWalletClient, erc20Abi, formatUnits, http, parseEther, parseUnits } from 'viem';
import type { Address, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { localChain } from '../../../dev/evm-node';
import type { RunningEvmNode } from '../../../dev/evm-node';
import { testUsdcContract } from '../../../dev/evm/test-usdc.contract';
import { chainClient } from './chain-control';
import type { PartnerClient } from './client';
import { sleep } from './client';
import type { History } from './history';
import type { SimulatedPartner } from './partners';
import { Random } from './random';

/**
 * Money coming in on chain during the run: someone outside the service (a key of its own, funded
 * before the load, talking to the node directly, never through the workers' proxies) sends eth
 * and usdc to the deposit wallets the partners' balances show, now and then below the network's
 * minimum. Each amount has its own last digits, so the checker can find each deposit in a
 * partner's history by what arrived; the client's log (`chain-deposit` lines) is all the checker
 * believes about what was sent, and the chain itself whether it stayed there.
 */

export const DEPOSIT_CURRENCIES = ['eth', 'usdc'] as const;
export type DepositCurrency = (typeof DEPOSIT_CURRENCIES)[number];

/** Mean gap between two deposits: a few a minute, beside a load of operations a second. */
const MEAN_GAP_MS = 4_000;
const BELOW_MINIMUM_SHARE = 0.1;
const DEPOSITOR_ETH = parseEther('1000');
const DEPOSITOR_USDC = parseUnits('10000000', 6);

export interface DepositTarget {
  partner: number;
  /** The wallet each currency's balance shows, on ethereum. */
  wallets: Record<DepositCurrency, Address>;
  minimum: Record<DepositCurrency, string>;
}

export interface ChainDepositLog {
  n: number;
  partner: number;
  currency: DepositCurrency;
  amount: string;
  belowMinimum: boolean;
  to: Address;
  /** Set once the node took the transaction into its pool; absent when sending failed. */
  hash?: Hex;
  sentAt: number;
  error?: string;
}

export class ChainDepositor {
  readonly deposits: ChainDepositLog[] = [];
  private stopped = false;

  private constructor(
    private readonly node: RunningEvmNode,
    private readonly key: Hex,
    private readonly targets: readonly DepositTarget[],
    private readonly history: History,
    private readonly seed: number,
  ) {}

  /** Funds a fresh key with eth (the node's own balance setter) and usdc (minted by the token's owner), and reads where to send from the API. */
  static async prepare(input: {
    node: RunningEvmNode;
    client: PartnerClient;
    partners: readonly SimulatedPartner[];
    history: History;
    seed: number;
  }): Promise<ChainDepositor> {
    const key = generatePrivateKey();
    const depositor = privateKeyToAccount(key).address;
    const chain = chainClient(input.node);
    await chain.setBalance({ address: depositor, value: DEPOSITOR_ETH });
    const owner = walletOf(input.node, input.node.usdcOwnerPrivateKey);
    const mint = await owner.writeContract({
      address: input.node.usdcAddress,
      abi: (await testUsdcContract()).abi,
      functionName: 'mint',
      args: [depositor, DEPOSITOR_USDC],
    });
    const minted = await chain.waitForTransactionReceipt({ hash: mint, pollingInterval: 200, timeout: 60_000 });
    if (minted.status !== 'success') throw new Error('minting the depositor its test USDC failed');
    const targets: DepositTarget[] = [];
    for (const partner of input.partners) targets.push(await depositTarget(input.client, partner, input.seed));
    input.history.write('depositor', { address: depositor, targets });
    return new ChainDepositor(input.node, key, targets, input.history, input.seed);
  }

  /** Sends deposits, one at a time, at random gaps for `durationMs` (or until stop()). */
  async run(durationMs: number): Promise<void> {
    const random = Random.stream(this.seed, 'chain-deposits');
    const wallet = walletOf(this.node, this.key);
    const until = this.history.now() + durationMs;
    while (!this.stopped) {
      await sleep(random.exponential(MEAN_GAP_MS));
      if (this.stopped || this.history.now() >= until) break;
      const target = random.pick(this.targets);
      const currency = random.pick(DEPOSIT_CURRENCIES);
      const belowMinimum = random.chance(BELOW_MINIMUM_SHARE);
      const n = this.deposits.length + 1;
      const deposit: ChainDepositLog = {
        n,
        partner: target.partner,
        currency,
        amount: depositAmount(currency, target.minimum[currency], belowMinimum, n, random),
        belowMinimum,
        to: target.wallets[currency],
        sentAt: this.history.now(),
      };
      this.deposits.push(deposit);
      try {
        deposit.hash =
          currency === 'eth'
            ? await wallet.sendTransaction({ to: deposit.to, value: parseEther(deposit.amount) })
            : await wallet.writeContract({
                address: this.node.usdcAddress,
                abi: erc20Abi,
                functionName: 'transfer',
                args: [deposit.to, parseUnits(deposit.amount, 6)],
              });
      } catch (error) {
        // The node refused it (a stall, a revert in progress): nothing was sent, and the log says so.
        deposit.error = error instanceof Error ? error.message.split('\n')[0] : String(error);
      }
      this.history.write('chain-deposit', { ...deposit });
    }
  }

  stop(): void {
    this.stopped = true;
  }
}

/**
 * Above the minimum: 2 to 10 times it; below: 1 to 8 tenths of it. The last four digits carry the
 * deposit's number, and the rest is a multiple of a tenth of the minimum (far more than 9999 base
 * units on ethereum), so no two deposits of a run (under 10,000 of them) have the same amount.
 */
export function depositAmount(currency: DepositCurrency, minimum: string, belowMinimum: boolean, n: number, random: Random): string {
  const decimals = currency === 'eth' ? 9 : 6;
  const minimumUnits = parseUnits(minimum, decimals);
  const tag = BigInt(n % 10_000);
  const units = belowMinimum ? (minimumUnits * BigInt(random.int(1, 8))) / 10n + tag : minimumUnits * BigInt(random.int(2, 10)) + tag;
  return formatUnits(units, decimals);
}

function walletOf(node: RunningEvmNode, key: Hex) {
  return createWalletClient({
    chain: localChain(node.chainId, node.rpcUrl),
    account: privateKeyToAccount(key),
    transport: http(node.rpcUrl, { retryCount: 2, timeout: 10_000 }),
  });
}

/** The partner's eth and usdc wallets and minimums on ethereum, as GET /v1/partner/balances shows them. */
async function depositTarget(client: PartnerClient, partner: SimulatedPartner, seed: number): Promise<DepositTarget> {
  const answer = await client.send(
    { op: -1, apiKey: partner.apiKey, method: 'GET', path: '/v1/partner/balances', firstApi: 0, maxAttempts: 10 },
    Random.stream(seed, `balances-${partner.index}`),
  );
  const body = answer.body && !Array.isArray(answer.body) ? answer.body : undefined;
  const balances = (body?.cryptoBalances ?? []) as Array<{
    name: string;
    wallet: string;
    networkConfig: Record<string, { deposit?: { minDeposit?: number | string } }>;
  }>;
  const read = (currency: DepositCurrency) => {
    const balance = balances.find((each) => each.name === currency);
    const minimum = balance?.networkConfig?.ethereum?.deposit?.minDeposit;
    if (!balance?.wallet || minimum === undefined)
      throw new Error(`partner ${partner.index}: no ${currency} wallet on ethereum in its balances`);
    return { wallet: balance.wallet as Address, minimum: String(minimum) };
  };
  const eth = read('eth');
  const usdc = read('usdc');
  return { partner: partner.index, wallets: { eth: eth.wallet, usdc: usdc.wallet }, minimum: { eth: eth.minimum, usdc: usdc.minimum } };
}
