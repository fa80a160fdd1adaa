import { randomUUID } from 'node:crypto';
import type { Currency } from '../core/currencies';
import { Decimal, MAX_AMOUNT, unitsToDecimal } from '../core/money';
import { findDepositAddressOwners } from '../db/queries/crypto-deposit.queries';
import { gasTopUpHashes } from '../db/queries/evm-sweep.queries';
import type { NewCryptoDeposit } from '../db/queries/crypto-deposit.queries';
import type { StoredBlock } from '../db/queries/evm-deposit-scan.queries';
import type pg from 'pg';
import { NETWORK_DECLARATIONS } from '../core/networks';
import { CURRENCY_SCALE } from '../core/currencies';
import type { EvmNetwork } from '../core/networks';
import type { SeenTransfer, SkippedItem } from './adapters/chain/evm/evm-deposit-parsing';
import type { EvmDepositReader } from './adapters/chain/evm/evm-deposit-reader';

/** Blocks (and receipts) asked of the node at once: a batch is a handful of round trips, not twenty in a row or all at once. */
const READ_CONCURRENCY = 4;

/** The chain moved while a batch read it (a block's parent is not the block before it): the batch is read again. */
export class ChainMovedDuringBatch extends Error {}

/** What one range of blocks holds for us: the headers to keep, the deposits to record, and what could not be read. */
export interface ReadBatch {
  blocks: StoredBlock[];
  deposits: NewCryptoDeposit[];
  skipped: SkippedItem[];
  /** Transactions to a deposit address that reverted: nothing arrived. */
  failedTransactions: string[];
}

/** Minimum deposit per currency on the network (network_config), exact decimal text. */
export type MinimumDeposits = Partial<Record<Currency, string>>;

async function mapConcurrently<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>, onEach: () => void): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
      onEach();
    }
  });
  await Promise.all(lanes);
  return results;
}

/**
 * Reads blocks from..to whole, and the token's Transfer logs in one eth_getLogs; keeps transfers to partners' deposit
 * addresses (native ones only with a successful receipt). Every block must follow the one before it (`parentOfFirst`: the
 * stored hash of from − 1) and every log and receipt name the block read at its height, or the chain moved: read again.
 */
export async function readDepositBatch(
  reader: EvmDepositReader,
  pool: pg.Pool,
  range: { network: EvmNetwork; from: bigint; to: bigint; parentOfFirst: string | undefined; minimums: MinimumDeposits },
  heartbeat: () => void,
): Promise<ReadBatch> {
  const numbers: bigint[] = [];
  for (let number = range.from; number <= range.to; number += 1n) numbers.push(number);
  const [parsed, logs] = await Promise.all([
    mapConcurrently(numbers, READ_CONCURRENCY, (number) => reader.block(number), heartbeat),
    reader.tokenTransfers(range.from, range.to),
  ]);
  const skipped: SkippedItem[] = [...logs.skipped];
  const skip = (reference: string, reason: string): void => void skipped.push({ reference, reason });
  const blocks: StoredBlock[] = [];
  const hashAt = new Map<bigint, string>();
  const native: SeenTransfer[] = [];
  let parent = range.parentOfFirst;
  parsed.forEach((block, index) => {
    const number = numbers[index]!;
    if (block === null) throw new ChainMovedDuringBatch(`the ${range.network} node has no block ${number} any more`);
    if (block.kind === 'malformed') {
      // Nothing in it can be trusted, not even its hash: skipped, so the next block is not held to it.
      skip(`block ${number}`, `${block.reason}; the whole block is skipped`);
      parent = undefined;
      return;
    }
    if (parent !== undefined && block.header.parentHash !== parent)
      throw new ChainMovedDuringBatch(`block ${number} of ${range.network} does not follow the block read before it`);
    parent = block.header.hash;
    blocks.push(block.header);
    hashAt.set(number, block.header.hash);
    native.push(...block.transfers);
    skipped.push(...block.skipped);
  });
  for (const log of logs.transfers) {
    const hash = hashAt.get(log.blockNumber);
    // A log of a block skipped as malformed goes with it; one of another block at that height means the chain moved.
    if (hash === undefined) continue;
    if (hash !== log.blockHash)
      throw new ChainMovedDuringBatch(`a ${range.network} log names another block ${log.blockNumber} than the one read`);
  }
  const tokenTransfers = logs.transfers.filter((log) => hashAt.has(log.blockNumber));

  const nativeCurrency = NETWORK_DECLARATIONS[range.network].nativeCurrency;
  const { owners, ambiguous } = await findDepositAddressOwners(
    pool,
    [...native, ...tokenTransfers].map((transfer) => transfer.to),
    [nativeCurrency, 'usdc'],
  );
  for (const address of ambiguous) skip(`address ${address}`, 'it is the wallet of two partners; nothing is credited to either');

  const toOurAddresses = native.filter((transfer) => owners.has(transfer.to));
  // The hot wallet's gas for a token sweep lands at a deposit address too: custody paying itself, not a deposit.
  const topUps = await gasTopUpHashes(
    pool,
    toOurAddresses.map((transfer) => transfer.transactionHash),
  );
  const ours = toOurAddresses.filter((transfer) => !topUps.has(transfer.transactionHash.toLowerCase()));
  const outcomes = await mapConcurrently(ours, READ_CONCURRENCY, (transfer) => reader.receipt(transfer), heartbeat);
  const failedTransactions: string[] = [];
  const succeeded = ours.filter((transfer, index) => {
    const outcome = outcomes[index];
    if (outcome === 'elsewhere')
      throw new ChainMovedDuringBatch(`transaction ${transfer.transactionHash} is no longer in block ${transfer.blockNumber}`);
    if (outcome === 'failed') failedTransactions.push(transfer.transactionHash);
    if (outcome === 'unreadable')
      skip(`block ${transfer.blockNumber} transaction ${transfer.transactionHash}`, 'its receipt has no readable status');
    return outcome === 'success';
  });

  const deposits: NewCryptoDeposit[] = [];
  const record = (transfer: SeenTransfer, currency: Currency) => {
    const owner = owners.get(transfer.to);
    const accountId = owner?.accounts[currency];
    if (!owner) return;
    const reference = `block ${transfer.blockNumber} transaction ${transfer.transactionHash} log ${transfer.logIndex}`;
    if (!accountId) return skip(reference, `partner ${owner.partnerId} has no ${currency} account`);
    const amount = unitsToDecimal(transfer.value, CURRENCY_SCALE[currency]);
    if (new Decimal(amount).gt(MAX_AMOUNT))
      return skip(reference, `its amount ${amount.slice(0, 40)} ${currency} is beyond what an account holds`);
    const minimum = range.minimums[currency];
    deposits.push({
      id: randomUUID(),
      partnerId: owner.partnerId,
      accountId,
      network: range.network,
      currency,
      amount,
      transactionHash: transfer.transactionHash,
      transferIndex: transfer.transferIndex,
      blockNumber: transfer.blockNumber,
      blockHash: transfer.blockHash,
      address: owner.walletAddress,
      status: minimum !== undefined && new Decimal(amount).lt(minimum) ? 'UNSUCCESSFUL' : 'IN_PROGRESS',
    });
  };
  for (const transfer of succeeded) record(transfer, nativeCurrency);
  for (const transfer of tokenTransfers) record(transfer, 'usdc');
  return { blocks, deposits, skipped, failedTransactions };
}
