import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestClient, erc20Abi, formatEther, http, parseEther, parseGwei, parseUnits, publicActions } from 'viem';
import type { Address, Hex, TransactionReceipt } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createLogger } from '../../core/logger';
import { Decimal } from '../../core/money';
import { localChain, startEvmNode } from '../../dev/evm-node';
import type { RunningEvmNode } from '../../dev/evm-node';
import { startWorker } from '../../worker/worker';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { balancesOf } from '../support/operations';
import { quietSdkLogs } from '../support/sdk-logs';
import { testStack } from '../support/stack';
import { testTemporalAccess } from '../support/temporal-access';
import { TEST_WORKER_SETTINGS } from '../support/test-config';
import { useTestApi } from '../support/use-test-api';
import { blockOnTestToken } from '../support/evm-test-token';

/**
 * Crypto withdrawals through the HTTP API all the way to a real chain: a Hardhat node started for
 * this file, and a worker of this file's own (on its own task queue, so the stack's simulated
 * worker never picks these workflows up) that sends ethereum withdrawals through EvmChainAdapter.
 * What landed is read from the node's own state: balances, receipts, the hot wallet's nonce.
 *
 * The worker waits for two confirmations: the node mines a block per transaction, so a withdrawal
 * stays in progress at depth 1 until the test mines one more block. A withdrawal sent while the
 * test has paused mining is replaced (same nonce, higher fees) after REPLACE_AFTER_MS of real time.
 */

const TASK_QUEUE = `evm-e2e-${randomUUID()}`;
const REQUIRED_CONFIRMATIONS = 2;
const REPLACE_AFTER_MS = 1_000;
const ctx = useTestApi({ taskQueue: TASK_QUEUE });

let node: RunningEvmNode;
let chain: ReturnType<typeof createChainClient>;

function createChainClient(rpcUrl: string, chainId: number) {
  return createTestClient({ chain: localChain(chainId, rpcUrl), mode: 'hardhat', cacheTime: 0, transport: http(rpcUrl) }).extend(
    publicActions,
  );
}

beforeAll(async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'evm-withdrawal-e2e-'));
  ctx.defer(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  node = await startEvmNode({ dataDir, log: createLogger('evm-node', 'warn') });
  ctx.defer(() => node.stop());
  chain = createChainClient(node.rpcUrl, node.chainId);

  quietSdkLogs();
  const worker = await startWorker({
    databaseUrl: testStack().databaseUrl,
    temporalAddress: testStack().temporalAddress,
    namespace: testStack().namespace,
    taskQueue: TASK_QUEUE,
    workflowBundlePath: testStack().workflowBundlePath,
    log: createLogger('evm-e2e-worker', 'error'),
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
      evmNetworks: {
        ethereum: {
          rpcUrl: node.rpcUrl,
          chainId: node.chainId,
          hotWalletPrivateKey: node.hotWalletPrivateKey,
          requiredConfirmations: REQUIRED_CONFIRMATIONS,
          // Only a withdrawal sent while mining is paused waits this long: a mined one is never replaced.
          replaceAfterMs: REPLACE_AFTER_MS,
          usdcTokenAddress: node.usdcAddress,
          maxFeePerGasCapWei: parseGwei('500'),
          tokenTransferGasLimit: 100_000,
          // This file starts no deposit watcher (test/e2e/evm-deposit.test.ts does).
          depositConfirmations: 2,
          depositPollIntervalMs: 500,
        },
      },
    },
  });
  ctx.defer(() => worker.stop());
  // Ethereum goes to the node: the worker says it simulates every other rail, and not that one.
  expect(worker.simulatedRails).toEqual(['sepa', 'bitcoin', 'dogecoin', 'litecoin', 'polygon']);
}, 60_000);

const withdraw = (partner: TestPartner, body: Record<string, unknown>) =>
  ctx.api.request('POST', '/v1/partner/crypto-withdrawal', { apiKey: partner.apiKey, body });
const details = (partner: TestPartner, withdrawalId: string) =>
  ctx.api.request('GET', `/v1/crypto-withdrawal/details/${withdrawalId}`, { apiKey: partner.apiKey });

function newAddress(): Address {
  return privateKeyToAccount(generatePrivateKey()).address;
}

/** Custodial: no travel-rule wait whatever the amount (and every amount here is far below the EUR threshold anyway). */
function withdrawalBody(currency: 'eth' | 'usdc', amount: string, walletAddress: Address): Record<string, unknown> {
  return {
    currency,
    ...(currency === 'usdc' ? { network: 'ethereum' } : {}),
    amount,
    walletAddress,
    name: 'Jan Kowalski',
    walletType: 'CUSTODIAL',
    receiverType: 'NATURAL',
  };
}

/** Transactions of the hot wallet mined so far (its nonce in the latest block). */
function minedFromHotWallet(): Promise<number> {
  return chain.getTransactionCount({ address: node.hotWalletAddress, blockTag: 'latest' });
}

function usdcBalance(address: Address): Promise<bigint> {
  return chain.readContract({ address: node.usdcAddress, abi: erc20Abi, functionName: 'balanceOf', args: [address] });
}

/** The transaction hash the withdrawal shows once broadcast, and the receipt of that transaction (mined: depth 1). */
async function broadcastOnChain(partner: TestPartner, withdrawalId: string): Promise<{ hash: Hex; receipt: TransactionReceipt }> {
  return eventually(async () => {
    const response = await details(partner, withdrawalId);
    expect(response.json.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    const hash = response.json.transactionHash as Hex;
    return { hash, receipt: await chain.getTransactionReceipt({ hash }) };
  });
}

async function finalDetails(partner: TestPartner, withdrawalId: string, status: 'SUCCESSFUL' | 'UNSUCCESSFUL') {
  return eventually(async () => {
    const response = await details(partner, withdrawalId);
    expect(response.json.status).toBe(status);
    return response.json;
  });
}

async function storedWithdrawal(withdrawalId: string): Promise<{ stage: string; failure_reason: string | null }> {
  const rows = await ctx.orm.em
    .fork()
    .getConnection()
    .execute<Array<{ stage: string; failure_reason: string | null }>>('select stage, failure_reason from crypto_withdrawal where id = ?', [
      withdrawalId,
    ]);
  return rows[0]!;
}

async function storedAttempts(
  withdrawalId: string,
): Promise<Array<{ attempt: number; transaction_hash: string; max_fee_per_gas: string }>> {
  return ctx.orm.em
    .fork()
    .getConnection()
    .execute(
      'select attempt, transaction_hash, max_fee_per_gas::text from evm_transaction_attempt where withdrawal_id = ? order by attempt',
      [withdrawalId],
    );
}

/**
 * A withdrawal whose transaction reverted: its hold voided (amount + fee back) and the network fee
 * posted as a transfer of its own, the partner's two ledger lines in the currency; and its two
 * history entries, the withdrawal UNSUCCESSFUL and the fee kept, SUCCESSFUL.
 */
async function expectFeeKept(partner: TestPartner, withdrawalId: string, fee: string): Promise<void> {
  const lines = await ctx.orm.em
    .fork()
    .getConnection()
    .execute<Array<{ transfer_id: string; kind: string; state: string; amount: string }>>(
      `select t.id as transfer_id, t.kind, t.state, trim_scale(p.amount)::text as amount
         from ledger_posting p join ledger_transfer t on t.id = p.transfer_id join account a on a.id = p.account_id
        where a.partner_id = ? and a.currency = 'usdc' and t.kind <> 'DEPOSIT' order by t.created_at`,
      [partner.partnerId],
    );
  expect(lines).toEqual([
    { transfer_id: withdrawalId, kind: 'CRYPTO_WITHDRAWAL', state: 'VOIDED', amount: expect.stringMatching(/^-/) },
    { transfer_id: expect.any(String), kind: 'CRYPTO_WITHDRAWAL_FEE', state: 'POSTED', amount: `-${fee}` },
  ]);
  const now = new Date();
  const history = await ctx.api.request('GET', `/v1/partner/transaction-history/${now.getUTCMonth() + 1}/${now.getUTCFullYear()}`, {
    apiKey: partner.apiKey,
  });
  expect(history.status).toBe(200);
  const withdrawals = (history.json as Array<Record<string, unknown>>).filter((entry) => entry.type === 'cryptoWithdrawal');
  expect(withdrawals).toEqual([
    expect.objectContaining({ id: lines[1]!.transfer_id, amount: -Number(fee), currency: 'usdc', status: 'SUCCESSFUL', withdrawalId }),
    expect.objectContaining({ id: withdrawalId, currency: 'usdc', status: 'UNSUCCESSFUL' }),
  ]);
}

/**
 * What the settled withdrawal's transaction paid the network, as the node's receipt says (gas used at its price, in eth):
 * recorded, and moved from the house's fee income to NETWORK_FEES by one posted NETWORK_FEE transfer.
 */
async function expectNetworkFeePaid(withdrawalId: string, hash: Hex): Promise<void> {
  const receipt = await chain.getTransactionReceipt({ hash });
  const paid = formatEther(receipt.gasUsed * receipt.effectiveGasPrice);
  const connection = ctx.orm.em.fork().getConnection();
  const records = await connection.execute<Array<{ id: string; currency: string; amount: string; transaction_hash: string }>>(
    'select id, currency, trim_scale(amount)::text as amount, transaction_hash from crypto_withdrawal_network_fee where withdrawal_id = ?',
    [withdrawalId],
  );
  expect(records).toEqual([{ id: expect.any(String), currency: 'eth', amount: paid, transaction_hash: hash }]);
  const postings = await connection.execute<Array<{ kind: string; state: string; system_code: string; currency: string; amount: string }>>(
    `select t.kind, t.state, a.system_code, a.currency, trim_scale(p.amount)::text as amount
       from ledger_transfer t join ledger_posting p on p.transfer_id = t.id join account a on a.id = p.account_id
      where t.id = ? order by p.amount`,
    [records[0]!.id],
  );
  expect(postings).toEqual([
    { kind: 'NETWORK_FEE', state: 'POSTED', system_code: 'FEE_INCOME', currency: 'eth', amount: `-${paid}` },
    { kind: 'NETWORK_FEE', state: 'POSTED', system_code: 'NETWORK_FEES', currency: 'eth', amount: paid },
  ]);
}

/** What the balances endpoint shows after amount + fee left a deposit, at the currency's scale. */
function balanceAfter(deposit: string, amount: string, fee: number, scale: number): string {
  return new Decimal(deposit).minus(amount).minus(String(fee)).toFixed(scale);
}

afterEach(async () => {
  // A test that pauses mining leaves the node mining every transaction at once again.
  await chain?.setAutomine(true);
});

describe('crypto withdrawals sent on a real EVM chain through the API', () => {
  it('an eth withdrawal lands: the recipient holds exactly the amount, sent once from the hot wallet, and it settles at the required depth', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
    const recipient = newAddress();
    const amount = '0.012345678901234567';
    const minedBefore = await minedFromHotWallet();

    const response = await withdraw(partner, withdrawalBody('eth', amount, recipient));
    expect(response.status).toBe(200);
    const withdrawalId: string = response.json.withdrawalId;

    const { hash, receipt } = await broadcastOnChain(partner, withdrawalId);
    expect(receipt.status).toBe('success');
    expect(receipt.from).toBe(node.hotWalletAddress.toLowerCase());
    expect(receipt.to).toBe(recipient.toLowerCase());
    expect((await chain.getTransaction({ hash })).value).toBe(parseEther(amount));
    expect(await chain.getBalance({ address: recipient })).toBe(parseEther(amount));

    // Mined, but at depth 1 of 2: the withdrawal waits for one more block.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await details(partner, withdrawalId)).json).toMatchObject({ status: 'IN_PROGRESS', transactionHash: hash });
    await chain.mine({ blocks: 1 });

    const settled = await finalDetails(partner, withdrawalId, 'SUCCESSFUL');
    expect(settled).toMatchObject({
      id: withdrawalId,
      destination: recipient,
      transactionHash: hash,
      currency: { network: '', name: 'ETH' },
    });
    expect(settled.fee).toBe(0.0005);
    expect((await balancesOf(ctx.api, partner)).eth).toBe(balanceAfter('1', amount, settled.fee, 18));
    expect(await chain.getBalance({ address: recipient })).toBe(parseEther(amount));
    expect(await minedFromHotWallet()).toBe(minedBefore + 1);
    expect(await storedWithdrawal(withdrawalId)).toMatchObject({ stage: 'SETTLED' });
    await expectNetworkFeePaid(withdrawalId, hash);
  });

  it('a usdc withdrawal on ethereum lands as a token transfer: the recipient gains exactly the amount in the token', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { usdc: '100' } });
    const recipient = newAddress();
    const amount = '12.345678';
    const hotWalletUsdc = await usdcBalance(node.hotWalletAddress);
    const minedBefore = await minedFromHotWallet();

    const response = await withdraw(partner, withdrawalBody('usdc', amount, recipient));
    expect(response.status).toBe(200);
    const withdrawalId: string = response.json.withdrawalId;

    const { hash, receipt } = await broadcastOnChain(partner, withdrawalId);
    expect(receipt.status).toBe('success');
    expect(receipt.from).toBe(node.hotWalletAddress.toLowerCase());
    expect(receipt.to).toBe(node.usdcAddress.toLowerCase());
    await chain.mine({ blocks: 1 });

    const settled = await finalDetails(partner, withdrawalId, 'SUCCESSFUL');
    expect(settled).toMatchObject({ transactionHash: hash, currency: { network: 'ethereum', name: 'USDC' } });
    expect(settled.fee).toBe(3);
    expect(await usdcBalance(recipient)).toBe(parseUnits(amount, 6));
    expect(await usdcBalance(node.hotWalletAddress)).toBe(hotWalletUsdc - parseUnits(amount, 6));
    expect(await chain.getBalance({ address: recipient })).toBe(0n);
    expect((await balancesOf(ctx.api, partner)).usdc).toBe(balanceAfter('100', amount, settled.fee, 6));
    expect(await minedFromHotWallet()).toBe(minedBefore + 1);
    // The gas of a token transfer is paid in the network's coin.
    await expectNetworkFeePaid(withdrawalId, hash);
  });

  it('a usdc withdrawal the token refuses reverts on chain: UNSUCCESSFUL, the amount refunded and the network fee kept, the recipient got nothing', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { usdc: '50' } });
    const recipient = newAddress();
    await blockOnTestToken(node, recipient);
    const hotWalletUsdc = await usdcBalance(node.hotWalletAddress);
    const minedBefore = await minedFromHotWallet();

    const response = await withdraw(partner, withdrawalBody('usdc', '10', recipient));
    expect(response.status).toBe(200);
    const withdrawalId: string = response.json.withdrawalId;
    // Reserved: 50 − (10 + 3 fee).
    expect((await balancesOf(ctx.api, partner)).usdc).toBe('37.000000');

    const { hash, receipt } = await broadcastOnChain(partner, withdrawalId);
    expect(receipt.status).toBe('reverted');
    expect(receipt.from).toBe(node.hotWalletAddress.toLowerCase());
    expect(receipt.to).toBe(node.usdcAddress.toLowerCase());
    await chain.mine({ blocks: 1 });

    const failed = await finalDetails(partner, withdrawalId, 'UNSUCCESSFUL');
    expect(failed.transactionHash).toBe(hash);
    // The revert was mined: the network was paid, so the partner pays the 3 fee and gets the 10 back.
    expect((await balancesOf(ctx.api, partner)).usdc).toBe('47.000000');
    await expectFeeKept(partner, withdrawalId, '3');
    // A reverted transaction still paid its gas: the house's NETWORK_FEES has it.
    await expectNetworkFeePaid(withdrawalId, hash);
    expect(await storedWithdrawal(withdrawalId)).toEqual({ stage: 'REJECTED', failure_reason: expect.stringContaining('failed on chain') });
    expect(await usdcBalance(recipient)).toBe(0n);
    expect(await usdcBalance(node.hotWalletAddress)).toBe(hotWalletUsdc);
    // The reverted transaction used the nonce; nothing was sent again.
    expect(await minedFromHotWallet()).toBe(minedBefore + 1);
  });

  it('a stuck eth withdrawal is replaced at the same nonce with higher fees: it shows and settles by the replacement, sent once', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
    const recipient = newAddress();
    const amount = '0.05';
    const minedBefore = await minedFromHotWallet();
    await chain.setAutomine(false);

    const response = await withdraw(partner, withdrawalBody('eth', amount, recipient));
    expect(response.status).toBe(200);
    const withdrawalId: string = response.json.withdrawalId;
    const first = await eventually(async () => {
      const response = await details(partner, withdrawalId);
      expect(response.json.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
      return response.json.transactionHash as Hex;
    });
    await expect(chain.getTransactionReceipt({ hash: first })).rejects.toThrow(/could not be found/); // not mined
    const [original, replacement] = await eventually(async () => {
      const attempts = await storedAttempts(withdrawalId);
      expect(attempts.length).toBeGreaterThanOrEqual(2);
      return attempts;
    });
    expect(original!.transaction_hash).toBe(first);
    expect(BigInt(replacement!.max_fee_per_gas)).toBeGreaterThan(BigInt(original!.max_fee_per_gas));
    expect((await details(partner, withdrawalId)).json.status).toBe('IN_PROGRESS');
    await chain.mine({ blocks: REQUIRED_CONFIRMATIONS });

    const settled = await finalDetails(partner, withdrawalId, 'SUCCESSFUL');
    const attempts = await storedAttempts(withdrawalId);
    const landed = attempts.find((attempt) => attempt.transaction_hash === settled.transactionHash);
    expect(landed?.attempt).toBeGreaterThan(1);
    const receipt = await chain.getTransactionReceipt({ hash: settled.transactionHash });
    expect(receipt.status).toBe('success');
    expect(receipt.from).toBe(node.hotWalletAddress.toLowerCase());
    await expect(chain.getTransactionReceipt({ hash: first })).rejects.toThrow(/could not be found/);
    expect(await chain.getBalance({ address: recipient })).toBe(parseEther(amount));
    expect(await minedFromHotWallet()).toBe(minedBefore + 1);
    expect((await balancesOf(ctx.api, partner)).eth).toBe(balanceAfter('1', amount, settled.fee, 18));
    // What the replacement paid, the one on chain.
    await expectNetworkFeePaid(withdrawalId, settled.transactionHash);
  });

  it('a stuck usdc withdrawal whose replacement reverts: UNSUCCESSFUL, the amount refunded and the fee kept, and it shows the reverted replacement', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { usdc: '50' } });
    const recipient = newAddress();
    await blockOnTestToken(node, recipient);
    const minedBefore = await minedFromHotWallet();
    await chain.setAutomine(false);

    const response = await withdraw(partner, withdrawalBody('usdc', '10', recipient));
    expect(response.status).toBe(200);
    const withdrawalId: string = response.json.withdrawalId;
    const [original] = await eventually(async () => {
      const attempts = await storedAttempts(withdrawalId);
      expect(attempts.length).toBeGreaterThanOrEqual(2);
      return attempts;
    });
    await chain.mine({ blocks: REQUIRED_CONFIRMATIONS });

    const failed = await finalDetails(partner, withdrawalId, 'UNSUCCESSFUL');
    const landed = (await storedAttempts(withdrawalId)).find((attempt) => attempt.transaction_hash === failed.transactionHash);
    expect(landed?.attempt).toBeGreaterThan(1);
    expect((await chain.getTransactionReceipt({ hash: failed.transactionHash })).status).toBe('reverted');
    await expect(chain.getTransactionReceipt({ hash: original!.transaction_hash as Hex })).rejects.toThrow(/could not be found/);
    expect(await storedWithdrawal(withdrawalId)).toEqual({
      stage: 'REJECTED',
      failure_reason: `transaction ${failed.transactionHash} failed on chain`,
    });
    expect((await balancesOf(ctx.api, partner)).usdc).toBe('47.000000');
    await expectFeeKept(partner, withdrawalId, '3');
    await expectNetworkFeePaid(withdrawalId, failed.transactionHash);
    expect(await usdcBalance(recipient)).toBe(0n);
    expect(await minedFromHotWallet()).toBe(minedBefore + 1);
  });
});
