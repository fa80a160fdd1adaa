import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { createTestClient, erc20Abi, http, parseEther, parseGwei, parseUnits, publicActions } from 'viem';
import type { Address, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { BroadcastRequest } from '../../activities/adapters/chain/chain-adapter';
import { EvmChainAdapter } from '../../activities/adapters/chain/evm/evm-chain.adapter';
import { ChainRouter } from '../../activities/adapters/chain/chain-router';
import { SimulatedChainAdapter } from '../../activities/adapters/chain/simulated-chain.adapter';
import type { EvmChainAdapterOptions } from '../../activities/adapters/chain/evm/evm-chain.adapter';
import type { EvmNetworkConfig } from '../../activities/adapters/chain/evm/evm-network-config';
import { createLogger } from '../../core/logger';
import { localChain, startEvmNode } from '../../dev/evm-node';
import type { RunningEvmNode } from '../../dev/evm-node';
import type { CrashingBroadcastInput } from '../support/evm-crashing-broadcast.main';
import { killProcessGroup, spawnTsx } from '../support/processes';
import { testStack } from '../support/stack';
import { blockOnTestToken } from '../support/evm-test-token';
import { endPool, openPool } from '../../db/pool';

/**
 * The EVM adapter against a real Hardhat node started for this file, and the run's Postgres.
 * Every assertion about money reads the node's own state: balances, receipts, the hot wallet's
 * transaction count (its nonce: every transaction it ever had mined counts once).
 */

const REPLACE_AFTER_MS = 60_000;

let node: RunningEvmNode;
let pool: pg.Pool;
let chain: ReturnType<typeof createChainClient>;
/** The adapters' clock: tests move it past the replacement limit instead of sleeping. */
let nowMs = Date.parse('2026-11-22T12:00:00Z');
const clock = { now: () => new Date(nowMs) };

function createChainClient(rpcUrl: string, chainId: number) {
  return createTestClient({ chain: localChain(chainId, rpcUrl), mode: 'hardhat', cacheTime: 0, transport: http(rpcUrl) }).extend(
    publicActions,
  );
}

function networkConfig(overrides: Partial<EvmNetworkConfig> = {}): EvmNetworkConfig {
  return {
    rpcUrl: node.rpcUrl,
    chainId: node.chainId,
    hotWalletPrivateKey: node.hotWalletPrivateKey,
    requiredConfirmations: 1,
    replaceAfterMs: REPLACE_AFTER_MS,
    usdcTokenAddress: node.usdcAddress,
    maxFeePerGasCapWei: parseGwei('500'),
    ...overrides,
  };
}

function adapter(overrides: Partial<EvmNetworkConfig> = {}, options: Partial<EvmChainAdapterOptions> = {}): EvmChainAdapter {
  return new EvmChainAdapter({ pool, clock, networks: { ethereum: networkConfig(overrides) }, ...options });
}

function newAddress(): Address {
  return privateKeyToAccount(generatePrivateKey()).address;
}

function withdrawal(currency: 'eth' | 'usdc', amount: string, destination: Address = newAddress()): BroadcastRequest {
  return { withdrawalId: randomUUID(), currency, network: 'ethereum', destination, amount, memo: null };
}

/** Transactions of the hot wallet mined so far (its nonce in the latest block). */
function minedFromHotWallet(): Promise<number> {
  return chain.getTransactionCount({ address: node.hotWalletAddress, blockTag: 'latest' });
}

function usdcBalance(address: Address): Promise<bigint> {
  return chain.readContract({ address: node.usdcAddress, abi: erc20Abi, functionName: 'balanceOf', args: [address] });
}

async function storedAttempts(
  withdrawalId: string,
): Promise<Array<{ attempt: number; transaction_hash: string; max_fee_per_gas: string }>> {
  const result = await pool.query<{ attempt: number; transaction_hash: string; max_fee_per_gas: string }>(
    'select attempt, transaction_hash, max_fee_per_gas from evm_transaction_attempt where withdrawal_id = $1 order by attempt',
    [withdrawalId],
  );
  return result.rows;
}

async function storedNonce(withdrawalId: string): Promise<number> {
  const result = await pool.query<{ nonce: string }>('select nonce from evm_transaction where withdrawal_id = $1', [withdrawalId]);
  return Number(result.rows[0]!.nonce);
}

/**
 * Runs broadcast in a worker process of its own and SIGKILLs it at the crash point (see
 * test/support/evm-crashing-broadcast.main.ts): nothing after that point runs.
 */
async function broadcastAndCrash(request: BroadcastRequest, crashAt: CrashingBroadcastInput['crashAt']): Promise<void> {
  const { maxFeePerGasCapWei, ...config } = networkConfig();
  const input: CrashingBroadcastInput = {
    databaseUrl: testStack().databaseUrl,
    crashAt,
    network: { ...config, maxFeePerGasCapWei: maxFeePerGasCapWei.toString() },
    request,
  };
  const child = spawnTsx(testStack().dataDir, 'test/support/evm-crashing-broadcast.main.ts', [], {
    env: { ...process.env, EVM_CRASHING_BROADCAST: JSON.stringify(input) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    await new Promise<void>((resolve, reject) => {
      child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        if (chunk.includes('CRASH_POINT')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`the broadcasting process exited (${code}) before its crash point: ${stderr}`)));
    });
  } finally {
    await killProcessGroup(child);
  }
}

beforeAll(async () => {
  node = await startEvmNode({ dataDir: testStack().dataDir, log: createLogger('evm-node', 'warn') });
  chain = createChainClient(node.rpcUrl, node.chainId);
  pool = openPool({ connectionString: testStack().databaseUrl, max: 10 });
});

afterAll(async () => {
  if (pool) await endPool(pool);
  await node?.stop();
});

afterEach(async () => {
  // Each test leaves the node mining every transaction at once, and the clock moved on.
  await chain.setAutomine(true);
  nowMs += 10 * REPLACE_AFTER_MS;
});

describe('the EVM chain adapter on a real node', () => {
  it('sends an eth withdrawal that lands: the recipient gains exactly the amount, and a retry sends nothing more', async () => {
    const chainAdapter = adapter();
    const request = withdrawal('eth', '1.234567890123456789');
    const before = await minedFromHotWallet();

    const first = await chainAdapter.broadcast(request);
    const again = await chainAdapter.broadcast(request);

    expect(again).toEqual(first);
    expect(await chain.getBalance({ address: request.destination as Address })).toBe(1_234_567_890_123_456_789n);
    expect(await minedFromHotWallet()).toBe(before + 1);
    const receipt = await chain.getTransactionReceipt({ hash: first.transactionHash as Hex });
    expect(receipt.status).toBe('success');
    expect(await chainAdapter.confirmationState({ network: 'ethereum', ...first })).toBe('CONFIRMED');
    expect(await chainAdapter.landedTransactionHash({ network: 'ethereum', transactionHash: first.transactionHash })).toBe(
      first.transactionHash,
    );
  });

  it('sends a usdc withdrawal as an ERC-20 transfer: the recipient gains exactly the amount in the token', async () => {
    const chainAdapter = adapter();
    const request = withdrawal('usdc', '12.345678');
    const hotWalletUsdc = await usdcBalance(node.hotWalletAddress);

    const result = await chainAdapter.broadcast(request);

    expect(await chainAdapter.confirmationState({ network: 'ethereum', ...result })).toBe('CONFIRMED');
    expect(await usdcBalance(request.destination as Address)).toBe(12_345_678n);
    expect(await usdcBalance(node.hotWalletAddress)).toBe(hotWalletUsdc - 12_345_678n);
    expect(await chain.getBalance({ address: request.destination as Address })).toBe(0n);
  });

  it('refuses a retry of a withdrawal with other details, and amounts that would need rounding, before signing anything', async () => {
    const chainAdapter = adapter();
    const request = withdrawal('eth', '0.5');
    await chainAdapter.broadcast(request);
    const before = await minedFromHotWallet();

    await expect(chainAdapter.broadcast({ ...request, amount: '0.6' })).rejects.toThrow(/different details/);
    await expect(chainAdapter.broadcast({ ...request, destination: newAddress() })).rejects.toThrow(/different details/);
    await expect(chainAdapter.broadcast({ ...request, currency: 'usdc' })).rejects.toThrow(/different details/);
    await expect(chainAdapter.broadcast(withdrawal('usdc', '0.0000001'))).rejects.toThrow(/more than 6 decimal places/);
    await expect(chainAdapter.broadcast({ ...withdrawal('eth', '1'), destination: 'not-an-address' })).rejects.toThrow(
      /not an EVM address/,
    );
    await expect(chainAdapter.broadcast({ ...withdrawal('eth', '1'), currency: 'pol' })).rejects.toThrow(/not sent on ethereum/);
    // Equal amounts written differently are the same withdrawal.
    await expect(chainAdapter.broadcast({ ...request, amount: '0.50' })).resolves.toBeDefined();
    expect(await minedFromHotWallet()).toBe(before);
  });

  it('a worker killed after signing and before sending: the retry sends the stored transaction, exactly one', async () => {
    const request = withdrawal('eth', '0.25');
    const before = await minedFromHotWallet();

    await broadcastAndCrash(request, 'afterSigning');

    const [signed] = await storedAttempts(request.withdrawalId);
    expect(signed).toBeDefined();
    expect(await minedFromHotWallet()).toBe(before); // signed, stored, never sent
    const result = await adapter().broadcast(request);
    expect(result.transactionHash).toBe(signed!.transaction_hash);
    await adapter().broadcast(request);
    expect(await minedFromHotWallet()).toBe(before + 1);
    expect(await chain.getBalance({ address: request.destination as Address })).toBe(parseEther('0.25'));
  });

  it('a worker killed after sending and before answering: the retry sends nothing new, exactly one transaction', async () => {
    const request = withdrawal('usdc', '3');
    const before = await minedFromHotWallet();

    await broadcastAndCrash(request, 'afterSending');

    expect(await minedFromHotWallet()).toBe(before + 1);
    const [signed] = await storedAttempts(request.withdrawalId);
    const result = await adapter().broadcast(request);
    expect(result.transactionHash).toBe(signed!.transaction_hash);
    expect(await adapter().confirmationState({ network: 'ethereum', ...result })).toBe('CONFIRMED');
    expect(await minedFromHotWallet()).toBe(before + 1);
    expect(await usdcBalance(request.destination as Address)).toBe(parseUnits('3', 6));
  });

  it('replaces a stuck transaction at the same nonce with higher fees; the withdrawal settles once', async () => {
    const chainAdapter = adapter();
    const request = withdrawal('eth', '0.75');
    const before = await minedFromHotWallet();
    await chain.setAutomine(false);

    const result = await chainAdapter.broadcast(request);
    const query = { network: 'ethereum' as const, ...result };
    expect(await chainAdapter.confirmationState(query)).toBe('PENDING');
    expect(await storedAttempts(request.withdrawalId)).toHaveLength(1);

    nowMs += REPLACE_AFTER_MS;
    expect(await chainAdapter.confirmationState(query)).toBe('PENDING');
    const [original, replacement] = await storedAttempts(request.withdrawalId);
    expect(replacement).toBeDefined();
    expect(BigInt(replacement!.max_fee_per_gas)).toBeGreaterThanOrEqual((BigInt(original!.max_fee_per_gas) * 125n) / 100n);
    const pending = await chain.getTransaction({ hash: replacement!.transaction_hash as Hex });
    expect(pending.nonce).toBe(await storedNonce(request.withdrawalId));

    await chain.mine({ blocks: 1 });

    expect(await chainAdapter.confirmationState(query)).toBe('CONFIRMED');
    expect(await chainAdapter.landedTransactionHash(query)).toBe(replacement!.transaction_hash);
    await expect(chain.getTransactionReceipt({ hash: original!.transaction_hash as Hex })).rejects.toThrow(/could not be found/);
    expect(await minedFromHotWallet()).toBe(before + 1);
    expect(await chain.getBalance({ address: request.destination as Address })).toBe(parseEther('0.75'));
    // Confirmed: no further replacement however long the withdrawal is polled.
    nowMs += 10 * REPLACE_AFTER_MS;
    expect(await chainAdapter.confirmationState(query)).toBe('CONFIRMED');
    expect(await storedAttempts(request.withdrawalId)).toHaveLength(2);
  });

  it('a token transfer the token refuses reverts on chain: FAILED, and the recipient got nothing', async () => {
    const recipient = newAddress();
    await blockOnTestToken(node, recipient);
    const chainAdapter = adapter();

    const result = await chainAdapter.broadcast(withdrawal('usdc', '5', recipient));

    expect((await chain.getTransactionReceipt({ hash: result.transactionHash as Hex })).status).toBe('reverted');
    expect(await chainAdapter.confirmationState({ network: 'ethereum', ...result })).toBe('FAILED');
    expect(await usdcBalance(recipient)).toBe(0n);
  });

  it('while mining is paused the withdrawal stays PENDING (and one dropped from the pool is sent again); it confirms at the required depth once mining resumes', async () => {
    const chainAdapter = adapter({ requiredConfirmations: 3 });
    const request = withdrawal('eth', '0.1');
    await chain.setAutomine(false);

    const result = await chainAdapter.broadcast(request);
    const query = { network: 'ethereum' as const, ...result };
    expect(await chainAdapter.confirmationState(query)).toBe('PENDING');
    await chain.dropTransaction({ hash: result.transactionHash as Hex });
    await expect(chain.getTransaction({ hash: result.transactionHash as Hex })).rejects.toThrow(/could not be found/);
    expect(await chainAdapter.confirmationState(query)).toBe('PENDING');
    expect((await chain.getTransaction({ hash: result.transactionHash as Hex })).hash).toBe(result.transactionHash);

    await chain.mine({ blocks: 1 });
    expect(await chainAdapter.confirmationState(query)).toBe('PENDING'); // depth 1 of 3
    await chain.mine({ blocks: 1 });
    expect(await chainAdapter.confirmationState(query)).toBe('PENDING'); // depth 2 of 3
    await chain.mine({ blocks: 1 });
    expect(await chainAdapter.confirmationState(query)).toBe('CONFIRMED');
    expect(await chain.getBalance({ address: request.destination as Address })).toBe(parseEther('0.1'));
    expect(await storedAttempts(request.withdrawalId)).toHaveLength(1);
  });

  it('a confirmed transaction that a reorganisation removes is PENDING again, is sent again, and confirms once', async () => {
    const chainAdapter = adapter({ requiredConfirmations: 1 });
    const request = withdrawal('eth', '0.2');
    const before = await minedFromHotWallet();
    const snapshot = await chain.snapshot();

    const result = await chainAdapter.broadcast(request);
    const query = { network: 'ethereum' as const, ...result };
    expect(await chainAdapter.confirmationState(query)).toBe('CONFIRMED');

    await chain.setAutomine(false);
    await chain.revert({ id: snapshot });
    await expect(chain.getTransactionReceipt({ hash: result.transactionHash as Hex })).rejects.toThrow(/could not be found/);
    expect(await chain.getBalance({ address: request.destination as Address })).toBe(0n);

    expect(await chainAdapter.confirmationState(query)).toBe('PENDING');
    await chain.mine({ blocks: 1 });
    expect(await chainAdapter.confirmationState(query)).toBe('CONFIRMED');
    expect(await minedFromHotWallet()).toBe(before + 1);
    expect(await chain.getBalance({ address: request.destination as Address })).toBe(parseEther('0.2'));
  });

  it('signs nothing and takes no nonce while the hot wallet cannot pay; sends once it is topped up', async () => {
    const funded = await chain.getBalance({ address: node.hotWalletAddress });
    const request = withdrawal('eth', '2');
    await chain.setBalance({ address: node.hotWalletAddress, value: parseEther('1') });
    try {
      await expect(adapter().broadcast(request)).rejects.toThrow(/hot wallet holds .* short of/);
      expect(await storedAttempts(request.withdrawalId)).toEqual([]);
      // The next withdrawal is not stuck behind it: it takes the next nonce and lands.
      const small = withdrawal('eth', '0.01');
      const before = await minedFromHotWallet();
      await adapter().broadcast(small);
      expect(await minedFromHotWallet()).toBe(before + 1);
      expect(await storedNonce(small.withdrawalId)).toBe(before);
    } finally {
      await chain.setBalance({ address: node.hotWalletAddress, value: funded });
    }
    const result = await adapter().broadcast(request);
    expect(await chain.getBalance({ address: request.destination as Address })).toBe(parseEther('2'));
    expect((await chain.getTransactionReceipt({ hash: result.transactionHash as Hex })).status).toBe('success');
  });

  it('a worker without this network configured never simulates what the EVM adapter signed', async () => {
    const request = withdrawal('eth', '0.02');
    const { transactionHash, broadcastAt } = await adapter().broadcast(request);
    const simulated = new SimulatedChainAdapter({ confirmationDelayMs: 0 });
    const unconfigured = new ChainRouter([], simulated, pool);
    await expect(unconfigured.broadcast(request)).rejects.toThrow(/must not be simulated/);
    await expect(unconfigured.confirmationState({ network: 'ethereum', transactionHash, broadcastAt })).rejects.toThrow(
      /must not be simulated/,
    );
    // What it never signed is still simulated there (the networks without an RPC URL).
    const other = withdrawal('eth', '0.02');
    const fake = await unconfigured.broadcast(other);
    await expect(unconfigured.confirmationState({ network: 'ethereum', ...fake })).resolves.toBe('CONFIRMED');
    // A configured router sends on chain.
    const configured = new ChainRouter([adapter()], simulated, pool);
    await expect(configured.confirmationState({ network: 'ethereum', transactionHash, broadcastAt })).resolves.toBe('CONFIRMED');
  });

  it('never lets the RPC URL (often carrying an API key) out in an error', async () => {
    const unreachable = adapter({ rpcUrl: 'http://127.0.0.1:9/v3/secret-api-key' });
    const failure = await unreachable.broadcast(withdrawal('eth', '1')).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toContain('<EVM RPC URL>');
    expect((failure as Error).message).not.toContain('secret-api-key');
  });

  it('two withdrawals broadcast at once from one wallet by two workers get consecutive, distinct nonces and both land', async () => {
    const before = await minedFromHotWallet();
    const requests = [withdrawal('eth', '0.01'), withdrawal('usdc', '0.02')];
    await chain.setAutomine(false);

    const results = await Promise.all(requests.map((request) => adapter().broadcast(request)));
    await chain.mine({ blocks: 1 });

    const nonces = await Promise.all(requests.map((request) => storedNonce(request.withdrawalId)));
    expect([...nonces].sort((a, b) => a - b)).toEqual([before, before + 1]);
    for (const result of results) {
      expect(await adapter().confirmationState({ network: 'ethereum', ...result })).toBe('CONFIRMED');
    }
    expect(await minedFromHotWallet()).toBe(before + 2);
    expect(await chain.getBalance({ address: requests[0]!.destination as Address })).toBe(parseEther('0.01'));
    expect(await usdcBalance(requests[1]!.destination as Address)).toBe(parseUnits('0.02', 6));
  });
});
