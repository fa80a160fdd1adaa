import { randomBytes, randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import type pg from 'pg';
import { createTestClient, createWalletClient, erc20Abi, formatEther, http, parseEther, parseGwei, parseUnits, publicActions } from 'viem';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { EvmSweeper } from '../../activities/adapters/chain/evm/evm-sweeper';
import type { EvmNetworkConfig } from '../../activities/adapters/chain/evm/evm-network-config';
import { createEvmSweepActivities } from '../../activities/evm-sweep.activities';
import type { EvmSweepClaim, EvmSweepInput, EvmSweepProgress } from '../../contracts';
import { systemClock } from '../../core/clock';
import type { Currency } from '../../core/currencies';
import { createLogger } from '../../core/logger';
import { Decimal } from '../../core/money';
import { postTransferDirectly } from '../../db/ledger/ledger';
import { inPgTransaction } from '../../db/pg-transaction';
import { insertCryptoDeposits } from '../../db/queries/crypto-deposit.queries';
import { localChain, startEvmNode } from '../../dev/evm-node';
import type { RunningEvmNode } from '../../dev/evm-node';
import { testUsdcContract } from '../../dev/evm/test-usdc.contract';
import type { CrashingSweepInput } from '../support/evm-crashing-sweep.main';
import { blockOnTestToken } from '../support/evm-test-token';
import { eventually } from '../support/eventually';
import { createTestPartner, openTestOrm } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { killProcessGroup, spawnTsx } from '../support/processes';
import { testStack } from '../support/stack';
import { TEST_DEPOSIT_SEED, TEST_EVM_ACCOUNT_KEY } from '../support/test-config';
import { endPool, openPool } from '../../db/pool';

/**
 * The sweep's activities below Temporal, on a Hardhat node of this file and the run's Postgres:
 * claims and steps that overlap or repeat, and a worker process SIGKILLed after the sweep's
 * transaction is stored and after it is sent. Every assertion about money reads the node: what
 * the deposit address and the hot wallet hold, and how many transactions the address ever sent.
 *
 * The node stands for polygon (pol is its native coin), as in evm-deposit-activities.test.ts;
 * deposits are recorded here already credited (one transaction with their ledger credit), so no
 * watcher of the run ever sees them uncredited.
 */

const THRESHOLDS = { eth: '0.01', pol: '1', usdc: '1' } as const;

let node: RunningEvmNode;
let pool: pg.Pool;
let chain: ReturnType<typeof createChainClient>;
let activities: ReturnType<typeof createEvmSweepActivities>;

function createChainClient(rpcUrl: string, chainId: number) {
  return createTestClient({ chain: localChain(chainId, rpcUrl), mode: 'hardhat', cacheTime: 0, transport: http(rpcUrl) }).extend(
    publicActions,
  );
}

function networkConfig(): EvmNetworkConfig {
  return {
    rpcUrl: node.rpcUrl,
    chainId: node.chainId,
    hotWalletPrivateKey: node.hotWalletPrivateKey,
    requiredConfirmations: 1,
    replaceAfterMs: 60_000,
    usdcTokenAddress: node.usdcAddress,
    maxFeePerGasCapWei: parseGwei('500'),
  };
}

beforeAll(async () => {
  node = await startEvmNode({ dataDir: testStack().dataDir, log: createLogger('evm-node', 'warn') });
  chain = createChainClient(node.rpcUrl, node.chainId);
  pool = openPool({ connectionString: testStack().databaseUrl, max: 10 });
  activities = sweepActivities(EvmSweeper);
}, 60_000);

/** The sweep's activities on a sweeper of this file's node and seed (of `Sweeper`, a subclass a test may give). */
function sweepActivities(Sweeper: typeof EvmSweeper): ReturnType<typeof createEvmSweepActivities> {
  const sweeper = new Sweeper({ pool, networks: { polygon: networkConfig() }, accountKey: TEST_EVM_ACCOUNT_KEY });
  return createEvmSweepActivities({
    pool,
    clock: systemClock,
    log: createLogger('evm-sweep-activities', 'error'),
    evmSweeps: { sweeper, thresholds: THRESHOLDS, pollIntervalMs: 100 },
  });
}

afterAll(async () => {
  if (pool) await endPool(pool);
  await node?.stop();
});

/** Each attempt in an activity context of its own, as two workers would run them. */
const claimEvmSweep = (input: EvmSweepInput): Promise<EvmSweepClaim> => activities.claimEvmSweep(input);
const advanceEvmSweep = (input: { sweepId: string }): Promise<EvmSweepProgress> => activities.advanceEvmSweep(input);
const claim = (input: EvmSweepInput) =>
  new MockActivityEnvironment().run<[EvmSweepInput], EvmSweepClaim, typeof claimEvmSweep>(claimEvmSweep, input);
const advance = (sweepId: string) =>
  new MockActivityEnvironment().run<[{ sweepId: string }], EvmSweepProgress, typeof advanceEvmSweep>(advanceEvmSweep, { sweepId });

async function newPartner(): Promise<TestPartner> {
  const orm = await openTestOrm(2);
  return createTestPartner(orm).finally(() => orm.close(true));
}

const hex32 = () => `0x${randomBytes(32).toString('hex')}`;

/** A deposit found and credited, in one transaction with its ledger credit (as creditCryptoDeposit posts it). */
async function creditedDeposit(partner: TestPartner, currency: Currency, amount: string, address?: string): Promise<string> {
  const id = randomUUID();
  const now = new Date();
  await inPgTransaction(pool, async (client) => {
    await insertCryptoDeposits(
      client,
      [
        {
          id,
          partnerId: partner.partnerId,
          accountId: partner.accounts[currency].id,
          network: 'polygon',
          currency,
          amount,
          transactionHash: hex32(),
          transferIndex: currency === 'usdc' ? 0 : -1,
          // Block 0: no watcher's rewind of this run reaches below it.
          blockNumber: 0n,
          blockHash: hex32(),
          address: address ?? partner.accounts.pol.walletAddress!,
          status: 'IN_PROGRESS',
        },
      ],
      now,
    );
    await postTransferDirectly(
      client,
      {
        transferId: id,
        kind: 'DEPOSIT',
        postings: [
          { systemAccount: 'EXTERNAL_DEPOSITS', currency, amount: `-${amount}` },
          { accountId: partner.accounts[currency].id, amount },
        ],
      },
      now,
    );
    await client.query(`update crypto_deposit set status = 'SUCCESSFUL', stage = 'CREDITED', credited_at = $2 where id = $1`, [id, now]);
  });
  return id;
}

async function mintUsdc(to: string, amount: string): Promise<void> {
  const owner = createWalletClient({
    chain: chain.chain,
    transport: http(node.rpcUrl),
    account: privateKeyToAccount(node.usdcOwnerPrivateKey),
  });
  const hash = await owner.writeContract({
    address: node.usdcAddress,
    abi: (await testUsdcContract()).abi,
    functionName: 'mint',
    args: [to as Address, parseUnits(amount, 6)],
  });
  await chain.waitForTransactionReceipt({ hash, pollingInterval: 50 });
}

const usdcOf = (address: string) =>
  chain.readContract({ address: node.usdcAddress, abi: erc20Abi, functionName: 'balanceOf', args: [address as Address] });
const nativeOf = (address: string) => chain.getBalance({ address: address as Address });

/** Steps until the sweep is final, as the workflow does (a poll interval apart). */
async function untilFinal(sweepId: string): Promise<EvmSweepProgress> {
  for (let step = 0; step < 60; step += 1) {
    const progress = await advance(sweepId);
    if (progress.status !== 'IN_FLIGHT') return progress;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`sweep ${sweepId} is still in flight`);
}

/**
 * What the sweep posted as its network fee: its wei, and its transfer's postings (system account, currency, amount), which
 * must be what the chain says its transactions paid (receipts read here, with viem).
 */
async function postedFee(
  sweepId: string,
): Promise<{ wei: string | null; postings: Array<{ account: string; currency: string; amount: string }> }> {
  const sweep = await pool.query<{ wei: string | null; transfer: string | null }>(
    'select network_fee_base_units::text as wei, fee_transfer_id as transfer from evm_sweep where id = $1',
    [sweepId],
  );
  const { wei, transfer } = sweep.rows[0]!;
  const postings = await pool.query<{ account: string; currency: string; amount: string }>(
    `select a.system_code as account, p.currency, p.amount::text as amount
       from ledger_posting p join account a on a.id = p.account_id join ledger_transfer t on t.id = p.transfer_id
      where p.transfer_id = $1 and t.kind = 'NETWORK_FEE' order by a.system_code`,
    [transfer],
  );
  return { wei, postings: postings.rows };
}

async function gasPaidOnChain(hashes: readonly string[]): Promise<bigint> {
  let wei = 0n;
  for (const hash of hashes) {
    const receipt = await chain.getTransactionReceipt({ hash: hash as `0x${string}` });
    wei += receipt.gasUsed * receipt.effectiveGasPrice;
  }
  return wei;
}

const feePostings = (wei: bigint) => {
  const pol = formatEther(wei);
  return [
    { account: 'FEE_INCOME', currency: 'pol', amount: new Decimal(pol).negated().toFixed(18) },
    { account: 'NETWORK_FEES', currency: 'pol', amount: new Decimal(pol).toFixed(18) },
  ];
};

async function sweepRow(id: string) {
  const result = await pool.query<{
    status: string;
    failure_reason: string | null;
    sent: string | null;
    amount: string;
    hash: string | null;
  }>(
    `select status, failure_reason, sent_base_units::text as sent, amount_base_units::text as amount, transaction_hash as hash
       from evm_sweep where id = $1`,
    [id],
  );
  return result.rows[0]!;
}

async function storedTransactions(id: string): Promise<Array<{ from_address: string; nonce: string; attempts: string }>> {
  const result = await pool.query<{ from_address: string; nonce: string; attempts: string }>(
    `select t.from_address, t.nonce::text, (select count(*) from evm_transaction_attempt a where a.withdrawal_id = t.withdrawal_id)::text as attempts
       from evm_transaction t where t.withdrawal_id = $1`,
    [id],
  );
  return result.rows;
}

async function balanceOf(partner: TestPartner, currency: Currency): Promise<string> {
  const result = await pool.query<{ balance: string }>(
    'select trim_scale(posted_amount)::text as balance from account where partner_id = $1 and currency = $2',
    [partner.partnerId, currency],
  );
  return result.rows[0]!.balance;
}

/**
 * The sweep's activities on a sweeper whose first nonce read waits until released: a run of the
 * step held after it found no transaction stored and before it looks at the address.
 */
function heldStep(): { activities: ReturnType<typeof createEvmSweepActivities>; reached: Promise<void>; release(): void } {
  let reached!: () => void;
  let release!: () => void;
  const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  class HeldSweeper extends EvmSweeper {
    override async nonces(...args: Parameters<EvmSweeper['nonces']>): ReturnType<EvmSweeper['nonces']> {
      reached();
      await released;
      return super.nonces(...args);
    }
  }
  return { activities: sweepActivities(HeldSweeper), reached: reachedPromise, release };
}

async function claimed(input: EvmSweepInput): Promise<string> {
  const result = await claim(input);
  if (result.kind !== 'claimed') throw new Error(`expected a claim, got ${JSON.stringify(result)}`);
  return result.sweepId;
}

/** Runs the sweep's steps in a process of its own and SIGKILLs it at the crash point (test/support/evm-crashing-sweep.main.ts). */
async function advanceAndCrash(sweepId: string, crashAt: CrashingSweepInput['crashAt']): Promise<void> {
  const { maxFeePerGasCapWei, ...config } = networkConfig();
  const input: CrashingSweepInput = {
    databaseUrl: testStack().databaseUrl,
    crashAt,
    seed: TEST_DEPOSIT_SEED,
    network: { ...config, hotWalletPrivateKey: node.hotWalletPrivateKey, maxFeePerGasCapWei: maxFeePerGasCapWei.toString() },
    sweepId,
  };
  const child = spawnTsx(testStack().dataDir, 'test/support/evm-crashing-sweep.main.ts', [], {
    env: { ...process.env, EVM_CRASHING_SWEEP: JSON.stringify(input) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    await new Promise<void>((resolve, reject) => {
      child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        if (chunk.includes('CRASH_POINT')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`the sweeping process exited (${code}) before its crash point: ${stderr}`)));
    });
  } finally {
    await killProcessGroup(child);
  }
}

describe('sweeping a deposit address, activity by activity', () => {
  it("signs nothing for a sweep row that pays another wallet than the sweeper's hot wallet (a row other processes may write)", async () => {
    const partner = await newPartner();
    const address = partner.accounts.pol.walletAddress!;
    await chain.setBalance({ address: address as Address, value: parseEther('1.5') });
    await creditedDeposit(partner, 'pol', '1.5');
    const claimed = await claim({ network: 'polygon', address, currency: 'pol', pollIntervalMs: 100 });
    if (claimed.kind !== 'claimed') throw new Error(`not claimed: ${claimed.kind}`);
    const elsewhere = privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
    // As payments_app may: the API's or the worker's role, which the sweeper does not trust with its destination.
    await pool.query('update evm_sweep set hot_wallet = $2 where id = $1', [claimed.sweepId, elsewhere]);
    await expect(advance(claimed.sweepId)).rejects.toThrow(`pays ${elsewhere}, not the hot wallet of polygon: nothing is signed or sent`);
    expect(await storedTransactions(claimed.sweepId)).toEqual([]);
    expect(await nativeOf(address)).toBe(parseEther('1.5'));
    // Put right, the same sweep goes on to the hot wallet.
    await pool.query('update evm_sweep set hot_wallet = $2 where id = $1', [claimed.sweepId, node.hotWalletAddress.toLowerCase()]);
    expect(await untilFinal(claimed.sweepId)).toMatchObject({ status: 'SWEPT' });
  });

  it('sweeps credited pol to the hot wallet once, whatever claims and steps overlap or repeat; the partner keeps its balance', async () => {
    const partner = await newPartner();
    const address = partner.accounts.pol.walletAddress!;
    await chain.setBalance({ address: address as Address, value: parseEther('2.5') });
    const depositId = await creditedDeposit(partner, 'pol', '2.5');
    const input: EvmSweepInput = { network: 'polygon', address, currency: 'pol', pollIntervalMs: 100 };
    const hotBefore = await nativeOf(node.hotWalletAddress);

    // Three claims at once: one sweep, the others resume it.
    const claims = await Promise.all([claim(input), claim(input), claim(input)]);
    const ids = new Set(claims.map((each) => (each.kind === 'claimed' ? each.sweepId : each.kind)));
    expect(ids.size).toBe(1);
    expect(claims.filter((each) => each.kind === 'claimed' && !each.resumed)).toHaveLength(1);
    const sweepId = [...ids][0]!;
    // A token claim at the address waits for this one.
    expect(await claim({ ...input, currency: 'usdc' })).toEqual({ kind: 'busy', inFlight: sweepId });

    // Three steps at once, then again: one signed transaction, sent, confirmed.
    await Promise.all([advance(sweepId), advance(sweepId), advance(sweepId)]);
    expect(await storedTransactions(sweepId)).toEqual([{ from_address: address.toLowerCase(), nonce: '0', attempts: '1' }]);
    const final = await untilFinal(sweepId);
    expect(final).toMatchObject({ sweepId, status: 'SWEPT', stage: 'SWEPT' });
    expect(await advance(sweepId)).toMatchObject({ status: 'SWEPT', transactionHash: final.transactionHash });

    const row = await sweepRow(sweepId);
    expect(row).toMatchObject({ status: 'SWEPT', amount: parseEther('2.5').toString(), hash: final.transactionHash });
    const sent = BigInt(row.sent!);
    // What was credited minus at most its gas (21 000 × the max fee it was signed with).
    expect(sent).toBeLessThan(parseEther('2.5'));
    expect(sent).toBeGreaterThan(parseEther('2.5') - parseEther('0.01'));
    expect((await nativeOf(node.hotWalletAddress)) - hotBefore).toBe(sent);
    expect(await nativeOf(address)).toBeLessThan(parseEther('2.5') - sent);
    // Its gas, as the receipt says, is the house's network fee: credited = sent + gas + what stays at the address.
    const gas = await gasPaidOnChain([final.transactionHash!]);
    expect(await nativeOf(address)).toBe(parseEther('2.5') - sent - gas);
    expect(await postedFee(sweepId)).toEqual({ wei: gas.toString(), postings: feePostings(gas) });
    expect(await chain.getTransactionCount({ address: address as Address })).toBe(1);
    expect(await balanceOf(partner, 'pol')).toBe('2.5');
    const linked = await pool.query('select sweep_id from crypto_deposit where id = $1', [depositId]);
    expect(linked.rows).toEqual([{ sweep_id: sweepId }]);
    expect(await claim(input)).toMatchObject({ kind: 'nothing' });
  });

  it('a step held between finding nothing stored and signing, while another run signs, sends and lands the sweep: it follows that transaction and the sweep ends SWEPT', async () => {
    const partner = await newPartner();
    const address = partner.accounts.pol.walletAddress!;
    await chain.setBalance({ address: address as Address, value: parseEther('2.5') });
    await creditedDeposit(partner, 'pol', '2.5');
    const sweepId = await claimed({ network: 'polygon', address, currency: 'pol', pollIntervalMs: 100 });
    const hotBefore = await nativeOf(node.hotWalletAddress);

    const held = heldStep();
    const late = new MockActivityEnvironment().run<[{ sweepId: string }], EvmSweepProgress, typeof advanceEvmSweep>(
      (input) => held.activities.advanceEvmSweep(input),
      { sweepId },
    );
    await held.reached;
    // The other run: signed, stored, sent; the node mines it, and the address holds only dust.
    expect(await advance(sweepId)).toMatchObject({ status: 'IN_FLIGHT', stage: 'SENT' });
    await eventually(async () => expect(await chain.getTransactionCount({ address: address as Address })).toBe(1));
    expect(await nativeOf(address)).toBeLessThan(parseEther('0.01'));
    held.release();

    expect(await late).toMatchObject({ sweepId, status: 'IN_FLIGHT', stage: 'SIGNED' });
    expect(await sweepRow(sweepId)).toMatchObject({ status: 'IN_FLIGHT', failure_reason: null });
    const final = await untilFinal(sweepId);
    expect(final).toMatchObject({ status: 'SWEPT' });
    expect(await storedTransactions(sweepId)).toEqual([{ from_address: address.toLowerCase(), nonce: '0', attempts: '1' }]);
    expect((await nativeOf(node.hotWalletAddress)) - hotBefore).toBe(BigInt((await sweepRow(sweepId)).sent!));
  });

  it('sweeps usdc after the hot wallet tops up its gas, never spending the pol of the address that is not swept yet', async () => {
    const partner = await newPartner();
    const address = partner.accounts.pol.walletAddress!;
    // 0.4 pol credited, below its threshold: it stays, and it is no gas money.
    await chain.setBalance({ address: address as Address, value: parseEther('0.4') });
    await creditedDeposit(partner, 'pol', '0.4');
    await mintUsdc(address, '25');
    await creditedDeposit(partner, 'usdc', '25');
    const hotUsdcBefore = await usdcOf(node.hotWalletAddress);

    expect(await claim({ network: 'polygon', address, currency: 'pol', pollIntervalMs: 100 })).toMatchObject({ kind: 'nothing' });
    const sweepId = await claimed({ network: 'polygon', address, currency: 'usdc', pollIntervalMs: 100 });
    expect(await advance(sweepId)).toMatchObject({ status: 'IN_FLIGHT', stage: 'GAS_TOP_UP' });
    const topUp = await pool.query<{ id: string; units: string }>(
      'select gas_top_up_transaction_id as id, gas_top_up_base_units::text as units from evm_sweep where id = $1',
      [sweepId],
    );
    const { id: topUpId, units } = topUp.rows[0]!;
    expect(await storedTransactions(topUpId)).toEqual([
      { from_address: node.hotWalletAddress.toLowerCase(), nonce: expect.any(String), attempts: '1' },
    ]);

    const final = await untilFinal(sweepId);
    expect(final).toMatchObject({ status: 'SWEPT' });
    expect(await usdcOf(address)).toBe(0n);
    expect((await usdcOf(node.hotWalletAddress)) - hotUsdcBefore).toBe(parseUnits('25', 6));
    // The network fee is both transactions' gas: the hot wallet's top-up and the address's token transfer.
    const topUpHash = await pool.query<{ hash: string }>(
      'select transaction_hash as hash from evm_transaction_attempt where withdrawal_id = $1',
      [topUpId],
    );
    const gas = await gasPaidOnChain([topUpHash.rows[0]!.hash, final.transactionHash!]);
    expect(await postedFee(sweepId)).toEqual({ wei: gas.toString(), postings: feePostings(gas) });
    // The gas came from the top-up alone: the credited pol is all still there.
    expect(await nativeOf(address)).toBeGreaterThanOrEqual(parseEther('0.4'));
    expect(await nativeOf(address)).toBeLessThanOrEqual(parseEther('0.4') + BigInt(units));
    expect(await storedTransactions(sweepId)).toEqual([{ from_address: address.toLowerCase(), nonce: '0', attempts: '1' }]);
    expect([await balanceOf(partner, 'usdc'), await balanceOf(partner, 'pol')]).toEqual(['25', '0.4']);
  });

  it('a worker killed after storing the sweep’s transaction: the next one sends those bytes, and signs nothing', async () => {
    const partner = await newPartner();
    const address = partner.accounts.pol.walletAddress!;
    await chain.setBalance({ address: address as Address, value: parseEther('3') });
    await creditedDeposit(partner, 'pol', '3');
    const sweepId = await claimed({ network: 'polygon', address, currency: 'pol', pollIntervalMs: 100 });
    await advanceAndCrash(sweepId, 'afterSigning');
    const [stored] = await storedTransactions(sweepId);
    expect(stored).toMatchObject({ nonce: '0', attempts: '1' });
    // Stored, never sent: the chain has not seen it.
    expect(await chain.getTransactionCount({ address: address as Address, blockTag: 'pending' })).toBe(0);
    const hash = await pool.query<{ transaction_hash: string }>(
      'select transaction_hash from evm_transaction_attempt where withdrawal_id = $1',
      [sweepId],
    );

    const final = await untilFinal(sweepId);
    expect(final).toMatchObject({ status: 'SWEPT', transactionHash: hash.rows[0]!.transaction_hash });
    expect(await storedTransactions(sweepId)).toEqual([stored]);
    expect(await chain.getTransactionCount({ address: address as Address })).toBe(1);
  });

  it('a worker killed right after sending a token sweep: the next one follows the same transaction to its end, the tokens moved once', async () => {
    const partner = await newPartner();
    const address = partner.accounts.pol.walletAddress!;
    await mintUsdc(address, '40');
    await creditedDeposit(partner, 'usdc', '40');
    const hotUsdcBefore = await usdcOf(node.hotWalletAddress);
    const sweepId = await claimed({ network: 'polygon', address, currency: 'usdc', pollIntervalMs: 100 });
    await advanceAndCrash(sweepId, 'afterSending');
    const [stored] = await storedTransactions(sweepId);

    expect(await untilFinal(sweepId)).toMatchObject({ status: 'SWEPT' });
    expect(await storedTransactions(sweepId)).toEqual([stored]);
    expect((await usdcOf(node.hotWalletAddress)) - hotUsdcBefore).toBe(parseUnits('40', 6));
    expect(await chain.getTransactionCount({ address: address as Address })).toBe(1);
  });

  it('ends FAILED, for operators, when the seed does not derive the address, or the token refuses the transfer', async () => {
    const partner = await newPartner();
    // Coins at an address that is the partner's by the books but not by the seed (an address of before derived addresses).
    const stranger = privateKeyToAccount(generatePrivateKey()).address;
    await chain.setBalance({ address: stranger, value: parseEther('2') });
    await creditedDeposit(partner, 'pol', '2', stranger);
    const notDerived = await claimed({ network: 'polygon', address: stranger, currency: 'pol', pollIntervalMs: 100 });
    expect(await advance(notDerived)).toMatchObject({ status: 'FAILED', failureReason: 'ADDRESS_NOT_DERIVED' });
    expect(await storedTransactions(notDerived)).toEqual([]);
    // Its deposits are not due again: the sweeper leaves them to operators.
    expect(await claim({ network: 'polygon', address: stranger, currency: 'pol', pollIntervalMs: 100 })).toMatchObject({ kind: 'nothing' });

    const address = partner.accounts.pol.walletAddress!;
    await mintUsdc(address, '30');
    await creditedDeposit(partner, 'usdc', '30');
    await blockOnTestToken(node, address as Address);
    const refused = await claimed({ network: 'polygon', address, currency: 'usdc', pollIntervalMs: 100 });
    expect(await untilFinal(refused)).toMatchObject({ status: 'FAILED', failureReason: 'REVERTED' });
    expect(await usdcOf(address)).toBe(parseUnits('30', 6));
    expect(await sweepRow(refused)).toMatchObject({ status: 'FAILED', failure_reason: 'REVERTED' });
    // A reverted transaction paid its gas too, as did its top-up: the network fee is posted all the same.
    const hashes = await pool.query<{ hash: string }>(
      `select a.transaction_hash as hash from evm_transaction_attempt a join evm_sweep s
          on a.withdrawal_id in (s.id, s.gas_top_up_transaction_id) where s.id = $1`,
      [refused],
    );
    expect(hashes.rows).toHaveLength(2);
    const gas = await gasPaidOnChain(hashes.rows.map((row) => row.hash));
    expect(await postedFee(refused)).toEqual({ wei: gas.toString(), postings: feePostings(gas) });
    // Nothing landed for the sweep that was never signed.
    expect(await postedFee(notDerived)).toEqual({ wei: null, postings: [] });
  });
});
