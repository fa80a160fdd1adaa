import { randomUUID } from 'node:crypto';
import * as bitcoin from 'bitcoinjs-lib';
import type pg from 'pg';
import { CURRENCY_SCALE } from '../../../../core/currencies';
import type { CryptoCurrency } from '../../../../core/currencies';
import { Decimal, unitsToDecimal } from '../../../../core/money';
import type { Logger } from '../../../../core/logger';
import { inPgTransaction } from '../../../../db/pg-transaction';
import {
  lastScannedUtxoBlock,
  recordScannedUtxoBlock,
  rewindUtxoBlocks,
  scannedUtxoBlockHash,
  walletScriptsAmong,
} from '../../../../db/queries/utxo-wallet.queries';
import type { FoundCoin } from '../../../../db/queries/utxo-wallet.queries';
import { findUtxoDepositAddressOwners, insertCryptoDeposits, orphanCryptoDeposits } from '../../../../db/queries/crypto-deposit.queries';
import type { NewCryptoDeposit } from '../../../../db/queries/crypto-deposit.queries';
import type { UtxoRpc } from './utxo-rpc';

/** Block hashes kept per network: a reorganisation deeper than this is not followed (and is logged as such). */
export const SCANNED_BLOCKS_KEPT = 200;

export interface ScanResult {
  head: number;
  lastBlock: number;
  blocksRead: number;
  coinsFound: number;
  /** Deposits to partners' addresses recorded (IN_PROGRESS, or UNSUCCESSFUL below the minimum). */
  depositsSeen: number;
  rewound: number;
}

export interface ScanDependencies {
  pool: pg.Pool;
  rpc: UtxoRpc;
  network: string;
  now: () => Date;
  log?: Logger | undefined;
  /** The first block read when none was: the wallet's birth (nothing paid it before). */
  fromHeight: number;
  /** How outputs' scripts are written as addresses (partners' deposit addresses are compared as text). */
  parameters: bitcoin.Network;
  currency: CryptoCurrency;
  /** network_config's minimum deposit: an output below it is recorded, not credited. */
  minimumDeposit: () => Promise<string | undefined>;
}

/**
 * Reads blocks after the last one read, up to the head or `maxBlocks`, recording the coins paying the wallet's scripts; a
 * block whose hash no longer matches the node's is rewound first (its coins unconfirmed until seen again). Each block is one
 * transaction, under a lock per network, so two scanners never record one block twice. A transaction that does not parse
 * is logged with its block and skipped.
 */
export async function scanUtxoBlocks(deps: ScanDependencies, maxBlocks: number, onBlock: () => void = () => {}): Promise<ScanResult> {
  const head = await deps.rpc.blockCount();
  let rewound = 0;
  let last = await lastScannedUtxoBlock(deps.pool, deps.network);
  // A node behind what was read (another backend, a node still syncing) is not judged until it is past it again.
  if (last && last.height > head) return { head, lastBlock: last.height, blocksRead: 0, coinsFound: 0, depositsSeen: 0, rewound: 0 };
  if (last && (await deps.rpc.blockHash(last.height)) !== last.hash) {
    rewound = await rewind(deps);
    last = await lastScannedUtxoBlock(deps.pool, deps.network);
  }
  let next = last ? last.height + 1 : deps.fromHeight;
  let blocksRead = 0;
  let coinsFound = 0;
  let depositsSeen = 0;
  const minimum = await deps.minimumDeposit();
  while (next <= head && blocksRead < maxBlocks) {
    const hash = await deps.rpc.blockHash(next);
    const block = await deps.rpc.block(hash);
    if (block.height !== next) throw new Error(`getblock ${hash}: the node says height ${block.height}, asked for ${next}`);
    const outputs = blockOutputs(block.transactions, (problem) => deps.log?.warn(`${deps.network} block ${next} (${hash}): ${problem}`));
    const recorded = await inPgTransaction(
      deps.pool,
      async (client): Promise<{ skipTo: number } | { coins: number; deposits: number } | undefined> => {
        await client.query(`select pg_advisory_xact_lock(hashtext('utxo-scan'), hashtext($1))`, [deps.network]);
        const latest = await lastScannedUtxoBlock(client, deps.network);
        const expected = latest ? latest.height + 1 : deps.fromHeight;
        // Another scanner recorded it meanwhile: go on from where it stands (a caller signs only once caught up).
        if (expected > next) return { skipTo: expected };
        // The previous block was replaced meanwhile (a reorganisation): the next pass rewinds.
        if (expected !== next || (latest && block.previousHash !== latest.hash)) return undefined;
        const ours = await walletScriptsAmong(
          client,
          deps.network,
          outputs.map((output) => output.scriptHex),
        );
        const coins = outputs.filter((output) => ours.has(output.scriptHex));
        await recordScannedUtxoBlock(client, deps.network, { height: next, hash }, coins, deps.now(), SCANNED_BLOCKS_KEPT);
        const deposits = await depositsIn(client, deps, { height: next, hash }, outputs, minimum);
        const inserted = await insertCryptoDeposits(client, deposits, deps.now());
        return { coins: coins.length, deposits: inserted.length };
      },
    );
    if (recorded === undefined) break;
    if ('skipTo' in recorded) {
      next = recorded.skipTo;
      continue;
    }
    coinsFound += recorded.coins;
    depositsSeen += recorded.deposits;
    blocksRead += 1;
    next += 1;
    // A mainnet block is megabytes: the watcher's activity says it is alive after each.
    onBlock();
  }
  return { head, lastBlock: next - 1, blocksRead, coinsFound, depositsSeen, rewound };
}

/**
 * Under the scanners' lock, so no other scanner records blocks meanwhile: walks down from the last block read to the highest
 * whose stored hash the node still has, and forgets what is above it. Nothing when another scanner rewound first.
 */
async function rewind(deps: ScanDependencies): Promise<number> {
  return inPgTransaction(deps.pool, async (client) => {
    await client.query(`select pg_advisory_xact_lock(hashtext('utxo-scan'), hashtext($1))`, [deps.network]);
    const last = await lastScannedUtxoBlock(client, deps.network);
    if (!last || (await deps.rpc.blockHash(last.height)) === last.hash) return 0;
    let height = last.height - 1;
    for (; height >= 0 && last.height - height <= SCANNED_BLOCKS_KEPT; height -= 1) {
      const stored = await scannedUtxoBlockHash(client, deps.network, height);
      if (stored === undefined) break;
      if ((await deps.rpc.blockHash(height)) === stored) break;
    }
    const forkHeight = Math.max(height, -1);
    deps.log?.warn(`${deps.network}: blocks above ${forkHeight} were reorganised away; reading them again`);
    // Deposits seen above the fork end UNSUCCESSFUL (credited ones become reconciliation findings), as on EVM networks.
    await orphanCryptoDeposits(client, deps.network, BigInt(forkHeight), deps.now());
    return rewindUtxoBlocks(client, deps.network, forkHeight);
  });
}

/** Outputs paying partners' deposit addresses, as deposits keyed by (txid, vout): what a reorganisation cannot change. */
async function depositsIn(
  client: pg.ClientBase,
  deps: ScanDependencies,
  block: { height: number; hash: string },
  outputs: readonly FoundCoin[],
  minimum: string | undefined,
): Promise<NewCryptoDeposit[]> {
  const addressed = outputs.flatMap((output) => {
    try {
      return [{ output, address: bitcoin.address.fromOutputScript(Buffer.from(output.scriptHex, 'hex'), deps.parameters) }];
    } catch {
      return []; // no address form (OP_RETURN, bare multisig, …): nobody's deposit address
    }
  });
  const owners = await findUtxoDepositAddressOwners(
    client,
    deps.currency,
    addressed.map((each) => each.address),
  );
  return addressed.flatMap(({ output, address }) => {
    const owner = owners.get(address);
    if (!owner) return [];
    const amount = unitsToDecimal(output.value, CURRENCY_SCALE[deps.currency]);
    return [
      {
        id: randomUUID(),
        partnerId: owner.partnerId,
        accountId: owner.accountId,
        network: deps.network,
        currency: deps.currency,
        amount,
        transactionHash: output.txid,
        transferIndex: output.vout,
        blockNumber: BigInt(block.height),
        blockHash: block.hash,
        address,
        status: minimum !== undefined && new Decimal(amount).lt(minimum) ? ('UNSUCCESSFUL' as const) : ('IN_PROGRESS' as const),
      },
    ];
  });
}

/** Every output of the block's transactions; one that does not parse is reported and skipped. */
export function blockOutputs(transactions: readonly string[], report: (problem: string) => void): FoundCoin[] {
  const outputs: FoundCoin[] = [];
  transactions.forEach((hex, position) => {
    let transaction: bitcoin.Transaction;
    try {
      transaction = bitcoin.Transaction.fromHex(hex);
    } catch (error) {
      report(`transaction ${position} does not parse (${error instanceof Error ? error.message : String(error)}); skipped`);
      return;
    }
    // A coinbase spends only after 100 blocks and dies with its block: mining to an address is no deposit nor a coin to spend.
    if (transaction.isCoinbase()) return;
    const txid = transaction.getId();
    transaction.outs.forEach((output, vout) => {
      if (output.value > 0n) outputs.push({ txid, vout, value: output.value, scriptHex: Buffer.from(output.script).toString('hex') });
    });
  });
  return outputs;
}
