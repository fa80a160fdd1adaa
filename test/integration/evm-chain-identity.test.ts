import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import type pg from 'pg';
import { createTestClient, createWalletClient, http, parseEther, parseGwei, publicActions } from 'viem';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { EvmChainAdapter } from '../../activities/adapters/chain/evm/evm-chain.adapter';
import { ChainIdentityMismatch, EvmChainIdentityGuard } from '../../activities/adapters/chain/evm/evm-chain-identity';
import type { EvmNetworkConfig } from '../../activities/adapters/chain/evm/evm-network-config';
import { EvmSweeper } from '../../activities/adapters/chain/evm/evm-sweeper';
import { checkCustody } from '../../activities/custody-reconciliation';
import { createEvmDepositActivities } from '../../activities/evm-deposit.activities';
import { createEvmSweepActivities } from '../../activities/evm-sweep.activities';
import { systemClock } from '../../core/clock';
import { createLogger } from '../../core/logger';
import { findChainIdentity } from '../../db/queries/evm-chain-identity.queries';
import { localChain, startEvmNode } from '../../dev/evm-node';
import type { RunningEvmNode } from '../../dev/evm-node';
import { workerReadiness } from '../../worker/health-server';
import { createTestPartner, openTestOrm } from '../support/fixtures';
import { testStack } from '../support/stack';
import { TEST_EVM_ACCOUNT_KEY } from '../support/test-config';
import { endPool, openPool } from '../../db/pool';

/**
 * The chain identity of a network (chain id + genesis hash, recorded at first use) against two
 * real Hardhat nodes with one chain id: `recorded`, on the tests' common genesis (every test node
 * standing for ethereum has it), and `reset`, another genesis: what a development chain that was
 * reset looks like. Withdrawals, the deposit watcher and the sweeps refuse the reset one, saying
 * why, and touch nothing; the chain is read by an independent client.
 */

let recorded: RunningEvmNode;
let reset: RunningEvmNode;
let pool: pg.Pool;
let dataDir: string;

function chainClient(node: RunningEvmNode) {
  return createTestClient({
    chain: localChain(node.chainId, node.rpcUrl),
    mode: 'hardhat',
    cacheTime: 0,
    transport: http(node.rpcUrl),
  }).extend(publicActions);
}

function ethereumOn(node: RunningEvmNode): EvmNetworkConfig {
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

function adapterOn(node: RunningEvmNode, identityGuard?: EvmChainIdentityGuard): EvmChainAdapter {
  return new EvmChainAdapter({ pool, ...(identityGuard ? { identityGuard } : {}), networks: { ethereum: ethereumOn(node) } });
}

function ethWithdrawal() {
  return {
    withdrawalId: randomUUID(),
    currency: 'eth' as const,
    network: 'ethereum' as const,
    destination: privateKeyToAccount(generatePrivateKey()).address,
    amount: '0.25',
    memo: null,
  };
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'evm-chain-identity-'));
  const log = createLogger('evm-node', 'warn');
  [recorded, reset] = await Promise.all([
    startEvmNode({ dataDir: path.join(dataDir, 'recorded'), log }),
    startEvmNode({ dataDir: path.join(dataDir, 'reset'), log, genesisDate: new Date('2026-06-01T00:00:00Z') }),
  ]);
  pool = openPool({ connectionString: testStack().databaseUrl, max: 5 });
}, 60_000);

afterAll(async () => {
  if (pool) await endPool(pool);
  await Promise.all([recorded?.stop(), reset?.stop()]);
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("a network's chain identity", () => {
  it('is recorded at first use, and a node on another chain is refused with the reason: nothing signed, sent or settled', async () => {
    const [recordedGenesis, resetGenesis] = await Promise.all([
      chainClient(recorded).getBlock({ blockNumber: 0n }),
      chainClient(reset).getBlock({ blockNumber: 0n }),
    ]);
    expect(resetGenesis.hash).not.toBe(recordedGenesis.hash);

    // The recorded chain: sent and confirmed as ever; its identity is the network's (recorded now, or by another file's node of the same genesis).
    const first = ethWithdrawal();
    const onRecorded = adapterOn(recorded);
    const sent = await onRecorded.broadcast(first);
    expect(await onRecorded.confirmationState({ network: 'ethereum', ...sent })).toBe('CONFIRMED');
    expect(await findChainIdentity(pool, 'ethereum')).toMatchObject({ chainId: recorded.chainId, genesisHash: recordedGenesis.hash });

    // The reset chain, same chain id: every call refused, naming both chains and the way out.
    const guard = new EvmChainIdentityGuard({ pool, clock: systemClock });
    const onReset = adapterOn(reset, guard);
    const second = ethWithdrawal();
    const refusal = await onReset.broadcast(second).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ChainIdentityMismatch);
    const message = (refusal as Error).message;
    expect(message).toContain(`refusing to broadcast withdrawal ${second.withdrawalId} on ethereum`);
    expect(message).toContain(`genesis ${recordedGenesis.hash}`);
    expect(message).toContain(`the node: chain id ${reset.chainId}, genesis ${resetGenesis.hash}`);
    expect(message).toContain('npm run ops -- chain adopt --network ethereum');
    // Nothing signed or stored for it, nothing sent from the reset chain's hot wallet.
    expect((await pool.query('select 1 from evm_transaction where withdrawal_id = $1', [second.withdrawalId])).rowCount).toBe(0);
    expect(await chainClient(reset).getTransactionCount({ address: reset.hotWalletAddress, blockTag: 'pending' })).toBe(0);
    // A withdrawal sent on the recorded chain is not settled from the reset one's answers either.
    await expect(onReset.confirmationState({ network: 'ethereum', ...sent })).rejects.toThrow(
      `refusing to settle on transaction ${sent.transactionHash} on ethereum`,
    );
    await expect(onReset.landedTransactionHash({ network: 'ethereum', transactionHash: sent.transactionHash })).rejects.toThrow(
      ChainIdentityMismatch,
    );
    // The identity stays the recorded chain's.
    expect(await findChainIdentity(pool, 'ethereum')).toMatchObject({ genesisHash: recordedGenesis.hash });

    // The worker's readiness says so, and stops saying so once the node is on the recorded chain again.
    const status = () => ({ runState: 'RUNNING', workflowPollerState: 'POLLING', activityPollerState: 'POLLING' }) as never;
    const refused = await workerReadiness(status, pool, [], guard);
    expect(refused).toMatchObject({
      ready: false,
      checks: { polling: 'ok', postgres: 'ok', chainIdentity: 'failed' },
      refusedChains: [{ network: 'ethereum', reason: expect.stringContaining(resetGenesis.hash) as string }],
    });
    await expect(adapterOn(recorded, guard).confirmationState({ network: 'ethereum', ...sent })).resolves.toBe('CONFIRMED');
    expect(await workerReadiness(status, pool, [], guard)).toMatchObject({
      ready: true,
      checks: { chainIdentity: 'ok' },
      refusedChains: [],
    });
  });

  it('the deposit watcher credits nothing against another chain, saying why', async () => {
    const orm = await openTestOrm(2);
    const partner = await createTestPartner(orm).finally(() => orm.close(true));
    // Make sure the network's identity is recorded (the recorded chain's), whichever test ran first.
    await adapterOn(recorded).confirmationState({ network: 'ethereum', ...(await adapterOn(recorded).broadcast(ethWithdrawal())) });
    const sender = privateKeyToAccount(generatePrivateKey());
    const chain = chainClient(reset);
    await chain.setBalance({ address: sender.address, value: parseEther('10') });
    const wallet = createWalletClient({ chain: chain.chain, transport: http(reset.rpcUrl), account: sender });
    const hash = await wallet.sendTransaction({ to: partner.accounts.eth.walletAddress as Address, value: parseEther('1.5') });
    await chain.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    await chain.mine({ blocks: 5 });

    const activities = createEvmDepositActivities({
      pool,
      clock: systemClock,
      log: createLogger('evm-chain-identity', 'error'),
      evmDeposits: {
        networks: {
          ethereum: {
            rpcUrl: reset.rpcUrl,
            chainId: reset.chainId,
            usdcTokenAddress: reset.usdcAddress,
            confirmations: 1,
            pollIntervalMs: 100,
          },
        },
      },
    });
    await expect(
      new MockActivityEnvironment().run((input) => activities.scanEvmDeposits(input), { network: 'ethereum' as const }),
    ).rejects.toThrow('refusing to credit deposits on ethereum: its node is on another chain than the one recorded for ethereum');
    expect((await pool.query('select 1 from crypto_deposit where transaction_hash = $1', [hash.toLowerCase()])).rowCount).toBe(0);
    const balance = await pool.query<{ posted: string }>(
      `select trim_scale(posted_amount)::text as posted from account where partner_id = $1 and currency = 'eth'`,
      [partner.partnerId],
    );
    expect(balance.rows[0]?.posted).toBe('0');
  });

  it('a sweep signs nothing against another chain, and custody is not judged from its balances, saying why', async () => {
    // Make sure the network's identity is recorded (the recorded chain's), whichever test ran first.
    await adapterOn(recorded).confirmationState({ network: 'ethereum', ...(await adapterOn(recorded).broadcast(ethWithdrawal())) });
    const orm = await openTestOrm(2);
    const partner = await createTestPartner(orm).finally(() => orm.close(true));
    const address = partner.accounts.eth.walletAddress!.toLowerCase();
    // Coins at the deposit address on the reset chain: what a sweep would move if it trusted that chain.
    await chainClient(reset).setBalance({ address: address as Address, value: parseEther('2') });
    // A sweep in flight for the address, as claimEvmSweep leaves it (no credited deposit: nothing else of the run sees it).
    const sweepId = randomUUID();
    await pool.query(
      `insert into evm_sweep (id, network, currency, address, partner_id, deposit_index, hot_wallet, amount_base_units, status, created_at)
       select $1, 'ethereum', 'eth', $2, id, deposit_index, $3, $4, 'IN_FLIGHT', now() from partner where id = $5`,
      [sweepId, address, reset.hotWalletAddress.toLowerCase(), parseEther('1').toString(), partner.partnerId],
    );
    try {
      const guard = new EvmChainIdentityGuard({ pool, clock: systemClock });
      const sweeper = new EvmSweeper({
        pool,
        networks: { ethereum: ethereumOn(reset) },
        accountKey: TEST_EVM_ACCOUNT_KEY,
        identityGuard: guard,
      });
      const activities = createEvmSweepActivities({
        pool,
        clock: systemClock,
        log: createLogger('evm-chain-identity', 'error'),
        evmSweeps: { sweeper, thresholds: { eth: '0.01', pol: '1', usdc: '1' }, pollIntervalMs: 100 },
      });
      const refusal = await new MockActivityEnvironment()
        .run((input) => activities.advanceEvmSweep(input), { sweepId })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(refusal).toBeInstanceOf(ChainIdentityMismatch);
      expect((refusal as Error).message).toContain(`refusing to sign a sweep from ${address} on ethereum`);
      // Retryable, not a definite answer: the sweep is still in flight (no NONCE_MISMATCH), nothing signed, no nonce taken, nothing moved.
      expect((await pool.query('select status, failure_reason from evm_sweep where id = $1', [sweepId])).rows[0]).toEqual({
        status: 'IN_FLIGHT',
        failure_reason: null,
      });
      expect((await pool.query('select 1 from evm_transaction where withdrawal_id = $1', [sweepId])).rowCount).toBe(0);
      expect((await pool.query(`select 1 from evm_wallet_nonce where network = 'ethereum' and address = $1`, [address])).rowCount).toBe(0);
      expect(await chainClient(reset).getTransactionCount({ address: address as Address })).toBe(0);
      expect(guard.refused()).toEqual([expect.objectContaining({ network: 'ethereum' })]);

      // Custody reconciliation does not judge ethereum from the reset chain's balances: unchecked, with the reason.
      const custody = await checkCustody(pool, { evmCustody: sweeper }, createLogger('evm-chain-identity', 'error'));
      expect(custody.unchecked).toEqual([
        { network: 'ethereum', reason: expect.stringContaining('refusing to read custody balances on ethereum') as string },
      ]);
      expect(custody.lines).toEqual([]);
    } finally {
      // Ended, so no later sweeper of the run takes it up.
      await pool.query(`update evm_sweep set status = 'FAILED', failure_reason = 'NOTHING_AT_ADDRESS', finished_at = now() where id = $1`, [
        sweepId,
      ]);
    }
  });
});
