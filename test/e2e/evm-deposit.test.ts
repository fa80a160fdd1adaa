import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  createTestClient,
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  http,
  keccak256,
  parseEther,
  parseGwei,
  parseUnits,
  publicActions,
} from 'viem';
import type { Address, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { PrivateKeyAccount } from 'viem/accounts';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  RECONCILIATION_FINDINGS,
  evmDepositWatcherContract,
  evmSweepContract,
  evmSweepKey,
  evmSweeperContract,
  reconciliationContract,
} from '../../contracts';
import type { ReconciliationResult } from '../../contracts';
import { createLogger } from '../../core/logger';
import { localChain, startEvmNode } from '../../dev/evm-node';
import type { RunningEvmNode } from '../../dev/evm-node';
import { testUsdcContract } from '../../dev/evm/test-usdc.contract';
import { ensureEvmDepositWatchers } from '../../worker/evm-deposit-watchers';
import { ensureSweepers } from '../../worker/sweepers';
import { startWorker } from '../../worker/worker';
import { startSweeperWorker } from '../../worker/sweeper-worker';
import { depositSigningKeys } from '../../core/deposit-seed';
import type { RunningWorker } from '../../worker/worker';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { runOpsCli } from '../support/ops-cli';
import { balancesOf, historyOf } from '../support/operations';
import { quietSdkLogs } from '../support/sdk-logs';
import { testStack } from '../support/stack';
import { testTemporalAccess } from '../support/temporal-access';
import { TEST_DEPOSIT_SEED, TEST_WORKER_SETTINGS } from '../support/test-config';
import { useTestApi } from '../support/use-test-api';
import { startRegisteredWebhookReceiver } from '../support/webhook-receiver';
import { SWEEP_THRESHOLD_DEFAULTS } from '../../core/settings/declarations/sweeps';

/**
 * Deposits to partners' wallet addresses on a real chain, end to end: a Hardhat node started for
 * this file, a worker of this file's own (its own task queue) that watches it, and the ethereum
 * deposit watcher started as a production worker starts it. Money is sent with an independent
 * chain client (viem, keys of this test); what the partner sees is read through the API (history,
 * balances), its webhooks and the operator CLI.
 *
 * Deposits are credited at two confirmations: the node mines a block per transaction, so a deposit
 * stays IN_PROGRESS until the test mines one more block. The worker holds the test seed, so what
 * is credited above SWEEP_THRESHOLDS is swept to the hot wallet, and its reconciliation checks
 * custody against this node.
 */

const TASK_QUEUE = `evm-deposit-e2e-${randomUUID()}`;
const SWEEPER_TASK_QUEUE = `${TASK_QUEUE}-sweeper`;
const CONFIRMATIONS = 2;
/** Above these, credited and unswept at an address, it is swept to the hot wallet (the reverted test's 0.05 eth stays). */
const SWEEP_THRESHOLDS = { eth: '0.1', pol: '1', usdc: '5' } as const;
const SWEEPS = { thresholds: { ...SWEEP_THRESHOLD_DEFAULTS.development, ...SWEEP_THRESHOLDS }, pollIntervalMs: 200 };
const ctx = useTestApi({ taskQueue: TASK_QUEUE });

let node: RunningEvmNode;
let chain: ReturnType<typeof createChainClient>;
let worker: RunningWorker | undefined;
let sweeper: RunningWorker | undefined;
let sender: PrivateKeyAccount;

function createChainClient(rpcUrl: string, chainId: number) {
  return createTestClient({ chain: localChain(chainId, rpcUrl), mode: 'hardhat', cacheTime: 0, transport: http(rpcUrl) }).extend(
    publicActions,
  );
}

/** The ethereum network of this file's node, as the worker and the sweeper are configured with it. */
function chainSettings() {
  return {
    evmNetworks: {
      ethereum: {
        rpcUrl: node.rpcUrl,
        chainId: node.chainId,
        hotWalletPrivateKey: node.hotWalletPrivateKey,
        requiredConfirmations: 1,
        replaceAfterMs: 60_000,
        usdcTokenAddress: node.usdcAddress,
        maxFeePerGasCapWei: parseGwei('500'),
        tokenTransferGasLimit: 100_000,
        depositConfirmations: CONFIRMATIONS,
        depositPollIntervalMs: 200,
      },
    },
  };
}

/** The general worker: withdrawals, the deposit watcher and custody; it holds no deposit key. */
async function startDepositWorker(): Promise<RunningWorker> {
  return startWorker({
    databaseUrl: testStack().databaseUrl,
    temporalAddress: testStack().temporalAddress,
    namespace: testStack().namespace,
    taskQueue: TASK_QUEUE,
    workflowBundlePath: testStack().workflowBundlePath,
    // DEPOSIT_TEST_LOG=debug shows each batch of the watcher (head, last block read, fork point).
    log: createLogger('evm-deposit-e2e-worker', (process.env.DEPOSIT_TEST_LOG as 'debug' | undefined) ?? 'error'),
    http: { port: 0, host: '127.0.0.1' },
    settings: {
      travelRuleDeadlineMs: Number(TEST_WORKER_SETTINGS.TRAVEL_RULE_DEADLINE_MS),
      travelRuleThresholdEur: TEST_WORKER_SETTINGS.TRAVEL_RULE_THRESHOLD_EUR,
      denyListedAddresses: [TEST_WORKER_SETTINGS.DENY_LIST_ADDRESSES],
      temporal: testTemporalAccess(),
      development: {
        chainConfirmationDelayMs: Number(TEST_WORKER_SETTINGS.CHAIN_CONFIRMATION_DELAY_MS),
        bankSettlementDelayMs: Number(TEST_WORKER_SETTINGS.BANK_SETTLEMENT_DELAY_MS),
        bankRejectIbans: [TEST_WORKER_SETTINGS.SIMULATED_BANK_REJECT_IBANS],
      },
      ...chainSettings(),
    },
  });
}

/** The sweeper, as `npm run sweeper` runs it: the seed, its own task queue, thresholds a test's deposit is above. */
async function startSweeper(): Promise<RunningWorker> {
  return startSweeperWorker({
    databaseUrl: testStack().databaseUrl,
    temporalAddress: testStack().temporalAddress,
    namespace: testStack().namespace,
    taskQueue: SWEEPER_TASK_QUEUE,
    workflowBundlePath: testStack().workflowBundlePath,
    log: createLogger('evm-deposit-e2e-sweeper', 'error'),
    settings: {
      temporal: testTemporalAccess(),
      sweeps: SWEEPS,
      ...chainSettings(),
    },
    keys: depositSigningKeys({ evm: TEST_DEPOSIT_SEED }),
  });
}

beforeAll(async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'evm-deposit-e2e-'));
  ctx.defer(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  node = await startEvmNode({ dataDir, log: createLogger('evm-node', 'warn') });
  ctx.defer(() => node.stop());
  chain = createChainClient(node.rpcUrl, node.chainId);
  sender = privateKeyToAccount(generatePrivateKey());
  await chain.setBalance({ address: sender.address, value: parseEther('100') });
  // The sender's USDC, minted by the token's owner.
  const owner = createWalletClient({
    chain: chain.chain,
    transport: http(node.rpcUrl),
    account: privateKeyToAccount(node.usdcOwnerPrivateKey),
  });
  const minted = await owner.writeContract({
    address: node.usdcAddress,
    abi: (await testUsdcContract()).abi,
    functionName: 'mint',
    args: [sender.address, parseUnits('1000', 6)],
  });
  await chain.waitForTransactionReceipt({ hash: minted, pollingInterval: 50 });

  quietSdkLogs();
  worker = await startDepositWorker();
  ctx.defer(() => worker?.stop());
  // As npm run worker does on boot: one watcher per configured network, joined if it runs already.
  await ensureEvmDepositWatchers(ctx.temporal, TASK_QUEUE, ['ethereum'], createLogger('evm-deposit-e2e', 'error'));
  await ensureEvmDepositWatchers(ctx.temporal, TASK_QUEUE, ['ethereum'], createLogger('evm-deposit-e2e', 'error'));
  ctx.defer(() => ctx.temporal.workflow.getHandle(evmDepositWatcherContract.workflowId('ethereum')).terminate('test over'));
  // And the sweeper apart, on its own task queue, as `npm run sweeper` starts it.
  sweeper = await startSweeper();
  ctx.defer(() => sweeper?.stop());
  await ensureSweepers(ctx.temporal, SWEEPER_TASK_QUEUE, ['ethereum'], createLogger('evm-deposit-e2e', 'error'));
  ctx.defer(() => ctx.temporal.workflow.getHandle(evmSweeperContract.workflowId('ethereum')).terminate('test over'));
  // Deposits before the watcher's first batch would be before its start: wait for its cursor.
  await eventually(async () => {
    const rows = await ctx.orm.em.fork().getConnection().execute(`select last_block from evm_deposit_cursor where network = 'ethereum'`);
    expect(rows).toHaveLength(1);
  });
}, 90_000);

afterEach(async () => {
  await chain?.setAutomine(true);
});

const wallet = () => createWalletClient({ chain: chain.chain, transport: http(node.rpcUrl), account: sender });

async function sendEth(to: string, amount: string): Promise<Hex> {
  const hash = await wallet().sendTransaction({ to: to as Address, value: parseEther(amount) });
  expect((await chain.waitForTransactionReceipt({ hash, pollingInterval: 50 })).status).toBe('success');
  return hash;
}

/**
 * Sends with automine off and mines the one block it is in, leaving automine off (afterEach turns it
 * back on): the worker's sweeper may send a transaction at any time (an earlier test's credit), and
 * with automine its block would deepen the deposit behind the test's back.
 */
async function sendEthOneDeep(to: string, amount: string): Promise<Hex> {
  await chain.setAutomine(false);
  const hash = await wallet().sendTransaction({ to: to as Address, value: parseEther(amount) });
  await chain.mine({ blocks: 1 });
  expect((await chain.getTransactionReceipt({ hash })).status).toBe('success');
  return hash;
}

/** The partner's cryptoDeposit entries of this month, newest first. */
async function depositsOf(partner: TestPartner): Promise<Array<Record<string, unknown>>> {
  return (await historyOf(ctx.api, partner)).filter((entry) => entry.type === 'cryptoDeposit');
}

async function depositRow(transactionHash: string): Promise<{ id: string; status: string; stage: string }> {
  return eventually(async () => {
    const rows = await ctx.orm.em
      .fork()
      .getConnection()
      .execute<Array<{ id: string; status: string; stage: string }>>(
        'select id, status, stage from crypto_deposit where transaction_hash = ? order by created_at',
        [transactionHash.toLowerCase()],
      );
    expect(rows).toHaveLength(1);
    return rows[0]!;
  });
}

async function ledgerTransfers(id: string): Promise<number> {
  const rows = await ctx.orm.em
    .fork()
    .getConnection()
    .execute<Array<{ count: string }>>('select count(*) from ledger_transfer where id = ?', [id]);
  return Number(rows[0]!.count);
}

/** A few of the watcher's polls, to show that nothing more happens. */
const severalPolls = () => new Promise((resolve) => setTimeout(resolve, 1_500));

describe('deposits to partners on a real EVM chain', () => {
  it('an eth deposit shows IN_PROGRESS at once, is credited exactly once at its confirmations, across a worker restart, with its webhooks', async () => {
    const partner = await createTestPartner(ctx.orm);
    const receiver = await startRegisteredWebhookReceiver(partner.partnerId, ctx);
    const hash = await sendEth(partner.accounts.eth.walletAddress!, '0.25');

    const seen = await eventually(async () => {
      const [entry] = await depositsOf(partner);
      expect(entry).toMatchObject({ type: 'cryptoDeposit', currency: 'eth', amount: 0.25, status: 'IN_PROGRESS' });
      return entry!;
    });
    const deposit = await depositRow(hash);
    expect(deposit).toMatchObject({ id: seen.id, status: 'IN_PROGRESS', stage: 'SEEN' });
    // Depth 1 of 2: nothing is credited, however often the watcher looks.
    await severalPolls();
    expect((await depositsOf(partner))[0]).toMatchObject({ status: 'IN_PROGRESS' });
    expect(Number((await balancesOf(ctx.api, partner)).eth)).toBe(0);

    const seenMetrics = await (await fetch(`${worker!.httpUrl}/metrics`)).text();
    expect(seenMetrics).toMatch(/payments_deposits_seen_total\{network="ethereum",currency="eth"\} [1-9]/);
    expect(seenMetrics).toMatch(/payments_deposit_watcher_lag_blocks\{network="ethereum"\} 0/);

    // The worker goes away; the chain goes on; a new worker takes up from the cursor in Postgres.
    await worker!.stop();
    worker = undefined;
    await chain.mine({ blocks: 1 });
    worker = await startDepositWorker();

    await eventually(async () => expect((await depositsOf(partner))[0]).toMatchObject({ id: seen.id, status: 'SUCCESSFUL' }), {
      timeoutMs: 40_000,
    });
    await chain.mine({ blocks: 3 });
    await severalPolls();
    expect((await balancesOf(ctx.api, partner)).eth).toBe('0.250000000000000000');
    expect(await ledgerTransfers(seen.id as string)).toBe(1);
    expect(await depositsOf(partner)).toHaveLength(1);

    const events = await eventually(async () => {
      const received = receiver.received.filter((each) => each.event.data.id === seen.id);
      expect(received.map((each) => each.event.type)).toEqual(['deposit.pending', 'deposit.succeeded']);
      return received;
    });
    expect(events.every((each) => each.verified)).toBe(true);
    expect(events[1]!.event.data).toEqual({
      id: seen.id,
      type: 'cryptoDeposit',
      status: 'SUCCESSFUL',
      stage: 'CREDITED',
      failureReason: null,
      sequence: 2,
      network: 'ethereum',
      currency: 'eth',
      amount: '0.25',
      transactionHash: hash,
    });

    const creditedMetrics = await (await fetch(`${worker.httpUrl}/metrics`)).text();
    expect(creditedMetrics).toMatch(/payments_deposits_credited_total\{network="ethereum",currency="eth"\} 1\n/);
  });

  it('usdc is detected from its Transfer log; eth sent to the usdc wallet is credited to the eth balance of its owner', async () => {
    const partner = await createTestPartner(ctx.orm);
    const usdcWallet = partner.accounts.usdc.walletAddress!;
    // Both in one block, so that each is one confirmation deep until the test mines the next.
    await chain.setAutomine(false);
    const usdcHash = await wallet().writeContract({
      address: node.usdcAddress,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [usdcWallet as Address, parseUnits('12.5', 6)],
    });
    const ethHash = await wallet().sendTransaction({ to: usdcWallet as Address, value: parseEther('0.01') });
    await chain.mine({ blocks: 1 });
    const receipts = await Promise.all([usdcHash, ethHash].map((hash) => chain.getTransactionReceipt({ hash })));
    expect(receipts.map((receipt) => [receipt.status, receipt.blockNumber])).toEqual([
      ['success', receipts[0]!.blockNumber],
      ['success', receipts[0]!.blockNumber],
    ]);
    // Automine stays off until both are seen one deep: the worker's sweeper may send a transaction
    // (an earlier test's credit) at any time, and with automine its block would be their second.
    const [usdc, eth] = [await depositRow(usdcHash), await depositRow(ethHash)];
    expect([usdc.status, eth.status]).toEqual(['IN_PROGRESS', 'IN_PROGRESS']);
    await chain.setAutomine(true);
    await chain.mine({ blocks: 1 });

    await eventually(async () => {
      const entries = await depositsOf(partner);
      expect(
        entries
          .map(({ currency, amount, status }) => ({ currency, amount, status }))
          .sort((a, b) => String(a.currency).localeCompare(String(b.currency))),
      ).toEqual([
        { currency: 'eth', amount: 0.01, status: 'SUCCESSFUL' },
        { currency: 'usdc', amount: 12.5, status: 'SUCCESSFUL' },
      ]);
    });
    const balances = await balancesOf(ctx.api, partner);
    expect([balances.usdc, balances.eth]).toEqual(['12.500000', '0.010000000000000000']);
  });

  it('a deposit removed by a reorganisation before its confirmations is never credited and ends UNSUCCESSFUL', async () => {
    const partner = await createTestPartner(ctx.orm);
    const receiver = await startRegisteredWebhookReceiver(partner.partnerId, ctx);
    const snapshot = await chain.snapshot();
    const hash = await sendEthOneDeep(partner.accounts.eth.walletAddress!, '0.3');
    const deposit = await depositRow(hash);
    expect(deposit.status).toBe('IN_PROGRESS');

    // The block with the deposit is gone; the chain grows past it on another branch.
    await chain.revert({ id: snapshot });
    await chain.mine({ blocks: CONFIRMATIONS + 2 });
    expect(await chain.getTransactionReceipt({ hash }).catch(() => null)).toBeNull();

    await eventually(async () => expect((await depositsOf(partner))[0]).toMatchObject({ id: deposit.id, status: 'UNSUCCESSFUL' }), {
      timeoutMs: 30_000,
    });
    await chain.mine({ blocks: 3 });
    await severalPolls();
    expect(await depositsOf(partner)).toHaveLength(1);
    expect(Number((await balancesOf(ctx.api, partner)).eth)).toBe(0);
    expect(await ledgerTransfers(deposit.id)).toBe(0);
    await eventually(async () => {
      const events = receiver.received.filter((each) => each.event.data.id === deposit.id).map((each) => each.event);
      expect(events.map((event) => [event.type, 'failureReason' in event.data ? event.data.failureReason : undefined])).toEqual([
        ['deposit.pending', null],
        ['deposit.failed', 'REMOVED_BY_REORGANISATION'],
      ]);
    });
  });

  it('a credited usdc deposit that a reorganisation mines again at another place in another block is the same deposit, credited once', async () => {
    const partner = await createTestPartner(ctx.orm);
    const usdcWallet = partner.accounts.usdc.walletAddress! as Address;
    // A second sender, so that the deposit can be mined again without the transaction that came before it.
    const other = privateKeyToAccount(generatePrivateKey());
    await chain.setBalance({ address: other.address, value: parseEther('1') });
    const funded = await wallet().writeContract({
      address: node.usdcAddress,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [other.address, parseUnits('1', 6)],
    });
    await chain.waitForTransactionReceipt({ hash: funded, pollingInterval: 50 });
    const snapshot = await chain.snapshot();

    // First: another transaction's usdc Transfer, so the deposit's log is the block's second (log index 1).
    await chain.setAutomine(false);
    const otherWallet = createWalletClient({ chain: chain.chain, transport: http(node.rpcUrl), account: other });
    await otherWallet.writeContract({
      address: node.usdcAddress,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [sender.address, parseUnits('1', 6)],
    });
    // 5 usdc: the minimum deposit, and not above the sweep threshold, so no sweep moves it meanwhile.
    const signed = await wallet().signTransaction(
      await wallet().prepareTransactionRequest({
        to: node.usdcAddress,
        data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [usdcWallet, parseUnits('5', 6)] }),
        gas: 100_000n,
      }),
    );
    const hash = await wallet().sendRawTransaction({ serializedTransaction: signed });
    await chain.mine({ blocks: 1 });
    const first = await chain.getTransactionReceipt({ hash });
    expect(first.logs.map((log) => log.logIndex)).toEqual([1]);
    await chain.mine({ blocks: CONFIRMATIONS });
    const deposit = await depositRow(hash);
    await eventually(async () => expect((await depositsOf(partner))[0]).toMatchObject({ id: deposit.id, status: 'SUCCESSFUL' }), {
      timeoutMs: 30_000,
    });

    // Deeper than its confirmations: the blocks are gone; the same bytes are mined again, alone, first in a new block.
    await chain.revert({ id: snapshot });
    await wallet().sendRawTransaction({ serializedTransaction: signed });
    await chain.mine({ blocks: 1 });
    const again = await chain.getTransactionReceipt({ hash });
    expect(again.logs.map((log) => log.logIndex)).toEqual([0]);
    expect(again.blockHash).not.toBe(first.blockHash);
    await chain.mine({ blocks: CONFIRMATIONS + 3 });

    const rows = () =>
      ctx.orm.em
        .fork()
        .getConnection()
        .execute<Array<{ id: string; stage: string; block_hash: string; orphaned: boolean }>>(
          'select id, stage, block_hash, block_orphaned_at is not null as orphaned from crypto_deposit where transaction_hash = ?',
          [hash.toLowerCase()],
        );
    // One deposit, at its new block, and not a finding.
    await eventually(
      async () => expect(await rows()).toEqual([{ id: deposit.id, stage: 'CREDITED', block_hash: again.blockHash, orphaned: false }]),
      {
        timeoutMs: 30_000,
      },
    );
    await severalPolls();
    expect(await rows()).toHaveLength(1);
    expect(await ledgerTransfers(deposit.id)).toBe(1);
    expect((await balancesOf(ctx.api, partner)).usdc).toBe('5.000000');
    expect((await depositsOf(partner)).map(({ id, status }) => ({ id, status }))).toEqual([{ id: deposit.id, status: 'SUCCESSFUL' }]);
  });

  it('a deposit below the minimum is recorded UNSUCCESSFUL, never credited, and listed for operators', async () => {
    const partner = await createTestPartner(ctx.orm);
    // network_config: eth on ethereum takes deposits from 0.0005.
    const hash = await sendEth(partner.accounts.eth.walletAddress!, '0.0001');
    const deposit = await depositRow(hash);
    expect(deposit).toMatchObject({ status: 'UNSUCCESSFUL', stage: 'BELOW_MINIMUM' });
    await chain.mine({ blocks: 3 });
    await severalPolls();
    expect(await depositsOf(partner)).toEqual([
      expect.objectContaining({ id: deposit.id, amount: 0.0001, currency: 'eth', status: 'UNSUCCESSFUL' }),
    ]);
    expect(Number((await balancesOf(ctx.api, partner)).eth)).toBe(0);
    expect(await ledgerTransfers(deposit.id)).toBe(0);

    const listed = await runOpsCli(['deposit', 'list', '--below-minimum', '--partner', partner.partnerId]);
    expect(listed.code).toBe(0);
    expect(listed.output.belowMinimum).toEqual([
      expect.objectContaining({
        id: deposit.id,
        partnerId: partner.partnerId,
        network: 'ethereum',
        currency: 'eth',
        amount: '0.0001',
        transactionHash: hash,
        transferIndex: -1,
        address: partner.accounts.eth.walletAddress,
        status: 'UNSUCCESSFUL',
        stage: 'BELOW_MINIMUM',
      }),
    ]);
  });

  it('a transaction that reverted credits nothing; the next one to the same address is credited alone', async () => {
    const partner = await createTestPartner(ctx.orm);
    const address = partner.accounts.eth.walletAddress! as Address;
    // Code that always reverts: a transfer to the address fails on chain (with its gas spent).
    await chain.setCode({ address, bytecode: '0x60006000fd' });
    await chain.setAutomine(false);
    const signed = await wallet().signTransaction(
      await wallet().prepareTransactionRequest({ to: address, value: parseEther('0.2'), gas: 100_000n }),
    );
    const failed = keccak256(signed);
    await wallet().sendRawTransaction({ serializedTransaction: signed });
    await chain.mine({ blocks: 1 });
    await chain.setAutomine(true);
    expect((await chain.getTransactionReceipt({ hash: failed })).status).toBe('reverted');
    await chain.setCode({ address, bytecode: '0x' });

    const hash = await sendEth(address, '0.05');
    await chain.mine({ blocks: 1 });
    await eventually(async () =>
      expect(await depositsOf(partner)).toEqual([expect.objectContaining({ amount: 0.05, status: 'SUCCESSFUL' })]),
    );
    expect((await depositRow(hash)).status).toBe('SUCCESSFUL');
    expect((await balancesOf(ctx.api, partner)).eth).toBe('0.050000000000000000');
    const rows = await ctx.orm.em.fork().getConnection().execute('select id from crypto_deposit where transaction_hash = ?', [failed]);
    expect(rows).toEqual([]);
  });
});

interface ListedSweep {
  id: string;
  currency: string;
  from: string;
  to: string;
  amountBaseUnits: string;
  sentBaseUnits: string | null;
  status: string;
  deposits: number;
  gasTopUpTransactionHash: string | null;
  transactionHash: string | null;
  networkFeeBaseUnits: string | null;
}

/** The partner's sweeps as operators list them (`ops sweep list --partner`), once none is in flight. */
async function sweptFor(partner: TestPartner, count: number): Promise<ListedSweep[]> {
  return eventually(
    async () => {
      const listed = await runOpsCli(['sweep', 'list', '--partner', partner.partnerId]);
      expect(listed.code).toBe(0);
      const sweeps = listed.output.sweeps as ListedSweep[];
      expect(sweeps.map((sweep) => sweep.status)).toEqual(Array.from({ length: count }, () => 'SWEPT'));
      return sweeps;
    },
    { timeoutMs: 40_000 },
  );
}

async function noSweepInFlight(): Promise<void> {
  await eventually(async () => expect((await runOpsCli(['sweep', 'list', '--status', 'IN_FLIGHT'])).output.sweeps).toEqual([]), {
    timeoutMs: 40_000,
  });
}

async function reconcile(): Promise<ReconciliationResult> {
  try {
    return await ctx.temporal.workflow.execute(reconciliationContract.workflowType, {
      taskQueue: TASK_QUEUE,
      workflowId: reconciliationContract.workflowId(`custody-test-${randomUUID()}`),
      args: [{ stuckAfterMs: 24 * 60 * 60 * 1000 }],
    });
  } catch (error) {
    if (error instanceof WorkflowFailedError && error.cause instanceof ApplicationFailure && error.cause.type === RECONCILIATION_FINDINGS) {
      return error.cause.details?.[0] as ReconciliationResult;
    }
    throw error;
  }
}

interface CustodyLine {
  currency: string;
  held: string;
  hotWallets: string;
  owed: string;
  shortfall: string | null;
  networks: Array<{ network: string; hotWallet: string }>;
}

async function custodyOf(reportId: string): Promise<{ lines: CustodyLine[]; shortfalls: CustodyLine[] }> {
  const rows = await ctx.orm.em
    .fork()
    .getConnection()
    .execute<Array<{ lines: CustodyLine[]; shortfalls: CustodyLine[] }>>(
      `select report->'custody' as lines, report->'custodyShortfalls' as shortfalls from reconciliation_report where id = ?`,
      [reportId],
    );
  return rows[0]!;
}

describe('credited deposits swept to the hot wallet, and custody', () => {
  it('eth credited is swept: the address keeps dust, the hot wallet gains the amount minus gas, the partner keeps its balance', async () => {
    await noSweepInFlight();
    const partner = await createTestPartner(ctx.orm);
    const address = partner.accounts.eth.walletAddress!;
    const hotBefore = await chain.getBalance({ address: node.hotWalletAddress });
    await sendEth(address, '1.5');
    await chain.mine({ blocks: 1 });
    await eventually(async () => expect((await depositsOf(partner))[0]).toMatchObject({ status: 'SUCCESSFUL' }));

    const [sweep] = await sweptFor(partner, 1);
    expect(sweep).toMatchObject({
      currency: 'eth',
      from: address.toLowerCase(),
      to: node.hotWalletAddress.toLowerCase(),
      amountBaseUnits: parseEther('1.5').toString(),
      deposits: 1,
      gasTopUpTransactionHash: null,
    });
    // Signed by the sweeper, on its own task queue: the worker, which delivers webhooks, holds no deposit key.
    const sweepWorkflow = evmSweepContract.workflowId(evmSweepKey({ network: 'ethereum', address, currency: 'eth' }));
    for (const workflowId of [sweepWorkflow, evmSweeperContract.workflowId('ethereum')]) {
      expect((await ctx.temporal.workflow.getHandle(workflowId).describe()).taskQueue).toBe(SWEEPER_TASK_QUEUE);
    }
    const sent = BigInt(sweep!.sentBaseUnits!);
    // Read from the chain itself: the sweep's transaction, from the deposit address to the hot wallet.
    const transaction = await chain.getTransaction({ hash: sweep!.transactionHash as Hex });
    expect([transaction.from, transaction.to, transaction.value]).toEqual([
      address.toLowerCase(),
      node.hotWalletAddress.toLowerCase(),
      sent,
    ]);
    const receipt = await chain.getTransactionReceipt({ hash: sweep!.transactionHash as Hex });
    expect(receipt.status).toBe('success');
    // Amount minus gas: at most 21 000 × its max fee went to the network, the rest of that stays as dust.
    expect(parseEther('1.5') - sent).toBeGreaterThanOrEqual(receipt.gasUsed * receipt.effectiveGasPrice);
    expect(parseEther('1.5') - sent).toBeLessThan(parseEther('0.001'));
    expect(await chain.getBalance({ address: address as Address })).toBe(
      parseEther('1.5') - sent - receipt.gasUsed * receipt.effectiveGasPrice,
    );
    expect((await chain.getBalance({ address: node.hotWalletAddress })) - hotBefore).toBe(sent);
    expect((await balancesOf(ctx.api, partner)).eth).toBe('1.500000000000000000');
    // The gas is the house's network fee, as operators see it.
    expect(sweep!.networkFeeBaseUnits).toBe((receipt.gasUsed * receipt.effectiveGasPrice).toString());
  });

  it('usdc credited is swept after the hot wallet tops up the address’s gas', async () => {
    await noSweepInFlight();
    const partner = await createTestPartner(ctx.orm);
    const address = partner.accounts.usdc.walletAddress! as Address;
    const hotUsdcBefore = await chain.readContract({
      address: node.usdcAddress,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [node.hotWalletAddress],
    });
    const hash = await wallet().writeContract({
      address: node.usdcAddress,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [address, parseUnits('20', 6)],
    });
    await chain.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    await chain.mine({ blocks: 1 });

    const [sweep] = await sweptFor(partner, 1);
    expect(sweep).toMatchObject({
      currency: 'usdc',
      amountBaseUnits: '20000000',
      sentBaseUnits: '20000000',
      gasTopUpTransactionHash: expect.any(String),
    });
    const topUp = await chain.getTransaction({ hash: sweep!.gasTopUpTransactionHash as Hex });
    expect([topUp.from, topUp.to]).toEqual([node.hotWalletAddress.toLowerCase(), address.toLowerCase()]);
    const balanceOf = (owner: Address) =>
      chain.readContract({ address: node.usdcAddress, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
    expect(await balanceOf(address)).toBe(0n);
    expect((await balanceOf(node.hotWalletAddress)) - hotUsdcBefore).toBe(parseUnits('20', 6));
    expect((await balancesOf(ctx.api, partner)).usdc).toBe('20.000000');
    // The house's network fee: the top-up's gas and the token transfer's.
    const gas = async (transactionHash: string) => {
      const receipt = await chain.getTransactionReceipt({ hash: transactionHash as Hex });
      return receipt.gasUsed * receipt.effectiveGasPrice;
    };
    expect(sweep!.networkFeeBaseUnits).toBe(
      ((await gas(sweep!.gasTopUpTransactionHash!)) + (await gas(sweep!.transactionHash!))).toString(),
    );

    // The gas the hot wallet sent is custody paying itself: no deposit, in the table or the partner's history.
    await chain.mine({ blocks: CONFIRMATIONS + 1 });
    await severalPolls();
    const topUpRows = await ctx.orm.em
      .fork()
      .getConnection()
      .execute('select id from crypto_deposit where transaction_hash = ?', [sweep!.gasTopUpTransactionHash!.toLowerCase()]);
    expect(topUpRows).toEqual([]);
    expect((await depositsOf(partner)).map((entry) => entry.currency)).toEqual(['usdc']);
  });

  it('custody: a hot wallet drained below what partners are owed is a reconciliation finding', async () => {
    const original = await chain.getBalance({ address: node.hotWalletAddress });
    ctx.defer(() => chain.setBalance({ address: node.hotWalletAddress, value: original }));
    const partner = await createTestPartner(ctx.orm);
    await sendEth(partner.accounts.eth.walletAddress!, '0.5');
    await chain.mine({ blocks: 1 });
    await sweptFor(partner, 1);

    // More than the whole run's partners are owed: no eth shortfall, whatever other files credit.
    await chain.setBalance({ address: node.hotWalletAddress, value: parseEther('1000000000000') });
    const funded = await reconcile();
    const before = await custodyOf(funded.reportId);
    const eth = before.lines.find((line) => line.currency === 'eth')!;
    expect(eth).toMatchObject({ hotWallets: '1000000000000', shortfall: null });
    expect(eth.networks).toEqual([expect.objectContaining({ network: 'ethereum', hotWallet: node.hotWalletAddress.toLowerCase() })]);
    expect(before.shortfalls.map((line) => line.currency)).not.toContain('eth');

    // A test-only drain: the swept eth (and every other) leaves custody.
    await chain.setBalance({ address: node.hotWalletAddress, value: 0n });
    const drained = await reconcile();
    expect(drained.ok).toBe(false);
    expect(drained.custodyShortfalls).toBeGreaterThanOrEqual(1);
    const after = await custodyOf(drained.reportId);
    const short = after.shortfalls.find((line) => line.currency === 'eth')!;
    expect(short).toMatchObject({ hotWallets: '0' });
    // Owed includes this partner's 0.5 at least; held is what deposit addresses not yet swept hold.
    expect(Number(short.owed)).toBeGreaterThanOrEqual(0.5);
    expect(Number(short.shortfall)).toBeCloseTo(Number(short.owed) - Number(short.held), 9);
    expect(Number(short.shortfall)).toBeGreaterThan(0);
  });
});
