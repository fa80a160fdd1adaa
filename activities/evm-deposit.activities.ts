import { Context } from '@temporalio/activity';
import type { EvmDepositScanInput, EvmDepositScanResult } from '../contracts';
import { EVM_DEPOSIT_WATCH } from '../contracts';
import type { Currency } from '../core/currencies';
import { creditCryptoDeposit, findDueCryptoDeposits, insertCryptoDeposits } from '../db/queries/crypto-deposit.queries';
import {
  findDepositCursor,
  findStoredBlock,
  insertStoredBlocks,
  moveDepositCursor,
  pruneStoredBlocks,
  startDepositCursor,
} from '../db/queries/evm-deposit-scan.queries';
import type { DepositCursor } from '../db/queries/evm-deposit-scan.queries';
import { inPgTransaction } from '../db/pg-transaction';
import { findNetworkConfigs } from '../db/queries/network-config.queries';
import { CURRENCY_SCALE } from '../core/currencies';
import { EvmChainIdentityGuard } from './adapters/chain/evm/evm-chain-identity';
import { NETWORK_DECLARATIONS } from '../core/networks';
import type { EvmNetwork } from '../core/networks';
import { EvmDepositReader } from './adapters/chain/evm/evm-deposit-reader';
import type { EvmDepositNetworkConfig } from './adapters/chain/evm/evm-deposit-reader';
import type { ActivityDependencies } from './dependencies';
import { readDepositBatch } from './evm-deposit-batch';
import type { MinimumDeposits } from './evm-deposit-batch';
import { findForkPoint, rewindTo } from './evm-deposit-rewind';
import { creditableUpTo } from './deposit-depth';

/** One watched network: its node, its token, and how deep a deposit must be before it is credited. */
export interface EvmDepositWatchConfig extends Omit<EvmDepositNetworkConfig, 'usdcDecimals'> {
  confirmations: number;
  pollIntervalMs: number;
}

/** What the watcher counts (worker/metrics.ts registers them): an interface, so activities know nothing of Prometheus. */
export interface DepositWatchMetrics {
  seen(network: string, currency: string, count: number): void;
  credited(network: string, currency: string, count: number): void;
  /** Blocks between the node's head and the last block read. */
  lag(network: string, blocks: number): void;
  rewound(network: string, blocks: number): void;
}

export type EvmDepositDependencies = Pick<ActivityDependencies, 'pool' | 'clock' | 'log'> & {
  /** The networks this worker watches (those with an RPC URL); absent or empty: none. */
  evmDeposits?: {
    networks: Partial<Record<EvmNetwork, EvmDepositWatchConfig>>;
    metrics?: DepositWatchMetrics;
    /** The worker's one guard, shared with the withdrawals' adapter; a new one when not given. */
    identityGuard?: EvmChainIdentityGuard;
  };
};

/** Credits per batch at most: a backlog (after an outage) is worked off over a few batches, each within its timeout. */
const CREDITS_PER_BATCH = 200;
/** Hashes kept beyond the confirmation depth: how deep a reorganisation can reach and still be traced to credited deposits. */
const KEPT_BEYOND_CONFIRMATIONS = 256;

export function createEvmDepositActivities(deps: EvmDepositDependencies) {
  const readers = new Map<EvmNetwork, EvmDepositReader>();
  const metrics = deps.evmDeposits?.metrics;
  const identityGuard = deps.evmDeposits?.identityGuard ?? new EvmChainIdentityGuard(deps);

  function watched(network: EvmNetwork): { config: EvmDepositWatchConfig; reader: EvmDepositReader } {
    const config = deps.evmDeposits?.networks[network];
    // Retryable: in a rolling deploy a worker that has the network's settings takes the next attempt.
    if (!config) throw new Error(`this worker does not watch ${network} for deposits (no EVM_RPC_URL_${network.toUpperCase()})`);
    let reader = readers.get(network);
    if (!reader) {
      reader = new EvmDepositReader(network, { ...config, usdcDecimals: CURRENCY_SCALE.usdc });
      readers.set(network, reader);
    }
    return { config, reader };
  }

  async function minimumsOn(network: EvmNetwork): Promise<MinimumDeposits> {
    const rows = await findNetworkConfigs(deps.pool);
    return Object.fromEntries(rows.filter((row) => row.network === network).map((row) => [row.currency, row.min_deposit]));
  }

  /** Credits what is deep enough: each deposit in a transaction of its own with its ledger transfer. */
  async function creditDue(network: EvmNetwork, upTo: bigint, heartbeat: () => void): Promise<number> {
    if (upTo < 0n) return 0;
    const due = await findDueCryptoDeposits(deps.pool, network, upTo, CREDITS_PER_BATCH);
    const byCurrency = new Map<Currency, number>();
    for (const id of due) {
      const outcome = await creditCryptoDeposit(deps.pool, id, deps.clock.now());
      if (outcome.credited && outcome.currency) byCurrency.set(outcome.currency, (byCurrency.get(outcome.currency) ?? 0) + 1);
      heartbeat();
    }
    for (const [currency, count] of byCurrency) metrics?.credited(network, currency, count);
    return [...byCurrency.values()].reduce((sum, count) => sum + count, 0);
  }

  return {
    /**
     * One batch of a network's deposit watcher, safe to run twice, even at once (the cursor moves only from where it was found):
     * 1. the node must be on the network's recorded chain (evm-chain-identity.ts), else the batch fails retryably; a cursor read
     *    on another chain starts over at the head; a fork below the last block read rewinds to the fork point (uncredited
     *    deposits above it end UNSUCCESSFUL, credited ones become reconciliation findings);
     * 2. up to EVM_DEPOSIT_WATCH.blocksPerBatch blocks are read, their deposits recorded in one transaction with the cursor's move;
     * 3. deposits with their confirmations are credited, each in one transaction with its ledger credit.
     */
    async scanEvmDeposits(input: EvmDepositScanInput): Promise<EvmDepositScanResult> {
      const { network } = input;
      const context = Context.current();
      const heartbeat = () => context.heartbeat();
      const { config, reader } = watched(network);
      const log = deps.log.child({ network });
      const genesisHash = await reader.genesisHash();
      await identityGuard.verify(
        network,
        { getChainId: () => reader.chainId(), genesisHash: () => Promise.resolve(genesisHash) },
        'credit deposits',
      );
      const head = await reader.head();
      heartbeat();
      const result = (cursor: DepositCursor, counts: Partial<EvmDepositScanResult> = {}): EvmDepositScanResult => {
        metrics?.lag(network, Number(head > cursor.lastBlock ? head - cursor.lastBlock : 0n));
        return {
          network,
          head: head.toString(),
          lastBlock: cursor.lastBlock.toString(),
          blocksRead: 0,
          seen: 0,
          credited: 0,
          rewound: 0,
          caughtUp: cursor.lastBlock >= head,
          pollIntervalMs: config.pollIntervalMs,
          ...counts,
        };
      };

      let cursor = await findDepositCursor(deps.pool, network);
      if (!cursor || cursor.genesisHash !== genesisHash || cursor.chainId !== config.chainId) {
        const fresh: DepositCursor = { network, chainId: config.chainId, genesisHash, lastBlock: head };
        // The block it starts after is kept too: a reorganisation of the very next block finds its fork point.
        const start = await reader.header(head);
        if (!start) throw new Error(`the ${network} node has no block ${head}, its own head`);
        if (!cursor) {
          // The first run reads from the head on: what arrived before was never watched.
          await inPgTransaction(deps.pool, async (client) => {
            if (await startDepositCursor(client, fresh, deps.clock.now())) await insertStoredBlocks(client, network, [start]);
          });
          log.info(`deposit watcher of ${network} starts at block ${head}`);
          return result(fresh);
        }
        // The identity check passed: this is the network's chain now (adopted, or recorded after the cursor), the cursor's is not.
        log.warn(
          `the ${network} cursor was read on another chain (genesis ${cursor.genesisHash}, chain id ${cursor.chainId}) than the network's recorded one ` +
            `(genesis ${genesisHash}, chain id ${config.chainId}): starting over at its head; deposits of the old chain not credited end UNSUCCESSFUL, credited ones are reconciliation findings`,
        );
        const rewound = await rewindTo(deps, { network, cursor, forkPoint: -1n, next: fresh, metrics, log });
        if (rewound.blocks > 0) await insertStoredBlocks(deps.pool, network, [start]);
        return result(rewound.cursor, { rewound: rewound.blocks });
      }
      // A node behind the last block read (another backend, a shorter chain) is not judged until it is past it again.
      if (head < cursor.lastBlock) return result(cursor, { caughtUp: true });

      let rewoundBlocks = 0;
      const kept = config.confirmations + KEPT_BEYOND_CONFIRMATIONS;
      const forkPoint = await findForkPoint(deps.pool, reader, network, cursor.lastBlock, kept, heartbeat);
      log.debug(`deposit batch of ${network}: head ${head}, last block read ${cursor.lastBlock}, fork point ${forkPoint.number}`);
      if (forkPoint.deeperThanKept)
        log.error(
          `a reorganisation of ${network} reaches below the ${kept} blocks kept: deposits below block ${forkPoint.number + 1n} were not checked`,
        );
      if (forkPoint.number < cursor.lastBlock) {
        const rewound = await rewindTo(deps, {
          network,
          cursor: { ...cursor, highestStored: forkPoint.highestStored },
          forkPoint: forkPoint.number,
          next: { ...cursor, lastBlock: forkPoint.number },
          metrics,
          log,
        });
        cursor = rewound.cursor;
        rewoundBlocks = rewound.blocks;
      }

      let seen = 0;
      let blocksRead = 0;
      const from = cursor.lastBlock + 1n;
      const batchEnd = cursor.lastBlock + BigInt(EVM_DEPOSIT_WATCH.blocksPerBatch);
      const to = head < batchEnd ? head : batchEnd;
      if (from <= to) {
        const parentOfFirst = (await findStoredBlock(deps.pool, network, cursor.lastBlock))?.hash;
        const batch = await readDepositBatch(
          reader,
          deps.pool,
          { network, from, to, parentOfFirst, minimums: await minimumsOn(network) },
          heartbeat,
        );
        for (const item of batch.skipped) log.error(`deposit watcher skipped ${network} ${item.reference}: ${item.reason}`);
        for (const hash of batch.failedTransactions)
          log.info(`${network} transaction ${hash} to a deposit address reverted: nothing arrived, nothing is credited`);
        const before = cursor;
        const next: DepositCursor = { ...cursor, lastBlock: to };
        const inserted = await inPgTransaction(deps.pool, async (client) => {
          if (!(await moveDepositCursor(client, { network, expected: before, next }, deps.clock.now()))) return undefined;
          await insertStoredBlocks(client, network, batch.blocks);
          return insertCryptoDeposits(client, batch.deposits, deps.clock.now());
        });
        // Another attempt of this batch moved the cursor first: it recorded the batch; the next one goes on from there.
        if (inserted === undefined) return result((await findDepositCursor(deps.pool, network)) ?? cursor);
        cursor = next;
        blocksRead = Number(to - from + 1n);
        seen = inserted.length;
        const byCurrency = new Map<string, number>();
        for (const row of inserted) byCurrency.set(row.currency, (byCurrency.get(row.currency) ?? 0) + 1);
        for (const [currency, count] of byCurrency) metrics?.seen(network, currency, count);
        if (inserted.length > 0) log.info(`${inserted.length} deposit(s) seen on ${network} in blocks ${from}–${to}`);
        heartbeat();
      }

      const finalized = NETWORK_DECLARATIONS[network].finalizedBlock ? await reader.finalized() : undefined;
      const credited = await creditDue(
        network,
        creditableUpTo({ head, confirmations: config.confirmations, lastRead: cursor.lastBlock, finalized }),
        heartbeat,
      );
      await pruneStoredBlocks(deps.pool, network, cursor.lastBlock - BigInt(kept));
      return result(cursor, { blocksRead, seen, credited, rewound: rewoundBlocks });
    },
  };
}
