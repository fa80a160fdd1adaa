import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import type pg from 'pg';
import { createTestClient, createWalletClient, http, parseEther, publicActions } from 'viem';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createEvmDepositActivities } from '../../activities/evm-deposit.activities';
import type { DepositWatchMetrics } from '../../activities/evm-deposit.activities';
import type { EvmDepositScanResult } from '../../contracts';
import { systemClock } from '../../core/clock';
import { createLogger } from '../../core/logger';
import { creditCryptoDeposit } from '../../db/queries/crypto-deposit.queries';
import { findDepositCursor, insertStoredBlocks, moveDepositCursor, startDepositCursor } from '../../db/queries/evm-deposit-scan.queries';
import { localChain, startEvmNode } from '../../dev/evm-node';
import type { RunningEvmNode } from '../../dev/evm-node';
import { createTestPartner, openTestOrm } from '../support/fixtures';
import { testStack } from '../support/stack';
import { endPool, openPool } from '../../db/pool';

/**
 * The deposit watcher's batch below Temporal, at its boundaries: attempts of one batch that run at
 * once (an attempt that outlived its timeout and its retry), and a batch run again after it
 * committed (a worker that died before Temporal heard of it), record a deposit once and credit it
 * once. The node here stands for polygon, so this file's watcher state is apart from the
 * ethereum watcher of test/e2e/evm-deposit.test.ts in the same run.
 */

let dataDir: string | undefined;
let node: RunningEvmNode;
let pool: pg.Pool;
let chain: ReturnType<typeof createChainClient>;
const credits: string[] = [];

function createChainClient(rpcUrl: string, chainId: number) {
  return createTestClient({ chain: localChain(chainId, rpcUrl), mode: 'hardhat', cacheTime: 0, transport: http(rpcUrl) }).extend(
    publicActions,
  );
}

const metrics: DepositWatchMetrics = {
  seen: () => undefined,
  credited: (_network, currency, count) => credits.push(...Array.from({ length: count }, () => currency)),
  lag: () => undefined,
  rewound: () => undefined,
};

let scan: () => Promise<EvmDepositScanResult>;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'evm-deposit-activities-'));
  node = await startEvmNode({ dataDir, log: createLogger('evm-node', 'warn') });
  chain = createChainClient(node.rpcUrl, node.chainId);
  pool = openPool({ connectionString: testStack().databaseUrl, max: 10 });
  const activities = createEvmDepositActivities({
    pool,
    clock: systemClock,
    log: createLogger('evm-deposit-activities', 'error'),
    evmDeposits: {
      networks: {
        polygon: { rpcUrl: node.rpcUrl, chainId: node.chainId, usdcTokenAddress: node.usdcAddress, confirmations: 2, pollIntervalMs: 100 },
      },
      metrics,
    },
  });
  // Each attempt in an activity context of its own, as two workers would run them.
  scan = () => new MockActivityEnvironment().run((input) => activities.scanEvmDeposits(input), { network: 'polygon' as const });
}, 60_000);

afterAll(async () => {
  if (pool) await endPool(pool);
  await node?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

async function rowsOf(transactionHash: string) {
  const result = await pool.query<{ id: string; status: string }>('select id, status from crypto_deposit where transaction_hash = $1', [
    transactionHash,
  ]);
  return result.rows;
}

describe("the deposit watcher's batch, run twice", () => {
  it('records a deposit once and credits it once, whatever attempts overlap or repeat', async () => {
    const orm = await openTestOrm(2);
    const partner = await createTestPartner(orm).finally(() => orm.close(true));
    await scan(); // the cursor starts at the head
    const sender = privateKeyToAccount(generatePrivateKey());
    await chain.setBalance({ address: sender.address, value: parseEther('10') });
    const wallet = createWalletClient({ chain: chain.chain, transport: http(node.rpcUrl), account: sender });
    const hash = await wallet.sendTransaction({ to: partner.accounts.pol.walletAddress as Address, value: parseEther('1.5') });
    await chain.waitForTransactionReceipt({ hash, pollingInterval: 50 });

    // Two attempts of the same batch at once: one moves the cursor and records, the other finds it moved.
    const overlapping = await Promise.all([scan(), scan(), scan()]);
    expect(overlapping.map((result) => result.seen).sort()).toEqual([0, 0, 1]);
    expect(await rowsOf(hash)).toEqual([{ id: expect.any(String), status: 'IN_PROGRESS' }]);

    await chain.mine({ blocks: 1 });
    const crediting = await Promise.all([scan(), scan(), scan()]);
    expect(crediting.reduce((sum, result) => sum + result.credited, 0)).toBe(1);
    // Run again after it committed: nothing more.
    expect((await scan()).credited).toBe(0);
    const [deposit] = await rowsOf(hash);
    expect(deposit).toMatchObject({ status: 'SUCCESSFUL' });
    expect(await creditCryptoDeposit(pool, deposit!.id, new Date())).toEqual({ credited: false });

    const ledger = await pool.query<{ transfers: string; balance: string }>(
      `select (select count(*) from ledger_transfer where id = $1)::text as transfers,
              (select trim_scale(posted_amount)::text from account where partner_id = $2 and currency = 'pol') as balance`,
      [deposit!.id, partner.partnerId],
    );
    expect(ledger.rows[0]).toEqual({ transfers: '1', balance: '1.5' });
    expect(credits).toEqual(['pol']);
  });
});

describe("the deposit watcher's rewind", () => {
  it('moves the cursor only while the highest block stored is still the one judged: not once it was rewound and read again', async () => {
    const hashOf = (digit: string) => `0x${digit.repeat(64)}`;
    const client = await pool.connect();
    try {
      // In a transaction rolled back at the end: the run's own cursor and blocks are left as they were.
      await client.query('begin');
      await startDepositCursor(client, { network: 'polygon', chainId: 31337, genesisHash: hashOf('a'), lastBlock: 10n }, new Date());
      // At block 10 at least, so that N-1 is a block (the run's own watcher may have left it lower).
      await client.query(`update evm_deposit_cursor set last_block = greatest(last_block, 10) where network = 'polygon'`);
      const cursor = (await findDepositCursor(client, 'polygon'))!;
      const last = cursor.lastBlock;
      const back = { lastBlock: last - 1n };
      const move = (highestStored: { number: bigint; hash: string }) =>
        moveDepositCursor(client, { network: 'polygon', expected: { ...cursor, highestStored }, next: back }, new Date());
      // Block N as read again after another attempt's rewind: not the block this attempt found gone.
      await insertStoredBlocks(client, 'polygon', [
        { number: last - 1n, hash: hashOf('e'), parentHash: hashOf('f') },
        { number: last, hash: hashOf('b'), parentHash: hashOf('e') },
      ]);
      expect(await move({ number: last, hash: hashOf('d') })).toBe(false);
      // Judged on a lower block (N skipped as malformed then), while N has been read since.
      expect(await move({ number: last - 1n, hash: hashOf('e') })).toBe(false);
      expect(await findDepositCursor(client, 'polygon')).toEqual(cursor);
      expect(await move({ number: last, hash: hashOf('b') })).toBe(true);
    } finally {
      await client.query('rollback');
      client.release();
    }
  });
});
