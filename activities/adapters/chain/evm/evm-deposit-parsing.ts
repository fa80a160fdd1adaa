/**
 * The deposit watcher's reading of a node's raw JSON-RPC answers, field by field: raw, not viem's formatted objects, so a
 * missing or malformed field is skipped with its reference instead of turning into a zero or an exception in a formatter.
 */

/** keccak256("Transfer(address,address,uint256)"): topic 0 of an ERC-20 transfer. */
export const ERC20_TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

const HASH = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** A JSON-RPC quantity: 0x and at most 64 hex digits (no 256-bit value needs more). */
const QUANTITY = /^0x[0-9a-fA-F]{1,64}$/;
/** An address in a 32-byte topic: twelve zero bytes, then the twenty of the address. */
const ADDRESS_TOPIC = /^0x0{24}([0-9a-fA-F]{40})$/;
const WORD = /^0x[0-9a-fA-F]{64}$/;

/** A block as the watcher keeps it: enough to tell whether the node's chain still goes through it. */
export interface ScannedBlockHeader {
  number: bigint;
  /** Lower case. */
  hash: string;
  parentHash: string;
}

/** A transfer to some address: what arrived (in the currency's smallest unit) and where it was seen. */
export interface SeenTransfer {
  transactionHash: string;
  /** The log's index in its block (what explorers show); -1 for a native (value) transfer. */
  logIndex: number;
  /**
   * Which transfer of its transaction, the deposit's key: -1 for a native transfer, else the log's position among the
   * token's Transfer logs of its transaction. A reorganisation that puts the transaction in another block, or at another
   * place in one, moves its log index but not this.
   */
  transferIndex: number;
  /** Lower case. */
  to: string;
  value: bigint;
  blockNumber: bigint;
  blockHash: string;
}

/** Something in an answer the watcher could not read: skipped, and logged with this reference. */
export interface SkippedItem {
  reference: string;
  reason: string;
}

export type ParsedBlock =
  | { kind: 'block'; header: ScannedBlockHeader; transfers: SeenTransfer[]; skipped: SkippedItem[] }
  /** The header itself is unreadable: nothing of the block can be trusted, not even its hash. */
  | { kind: 'malformed'; reason: string };

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function quantity(value: unknown): bigint | undefined {
  return typeof value === 'string' && QUANTITY.test(value) ? BigInt(value) : undefined;
}

function hash(value: unknown): string | undefined {
  return typeof value === 'string' && HASH.test(value) ? value.toLowerCase() : undefined;
}

/** A block's number, or undefined when the answer is not a block with a readable one. */
export function blockNumberOf(raw: unknown): bigint | undefined {
  return isObject(raw) ? quantity(raw.number) : undefined;
}

/** A block with its transactions: its header, and every transaction sending a positive value to an address (decided on later). */
export function parseBlock(raw: unknown, expectedNumber: bigint): ParsedBlock {
  if (!isObject(raw)) return { kind: 'malformed', reason: 'the answer is not a block object' };
  const number = quantity(raw.number);
  const blockHash = hash(raw.hash);
  const parentHash = hash(raw.parentHash);
  if (number !== expectedNumber) return { kind: 'malformed', reason: `its number is ${String(raw.number)}, not ${expectedNumber}` };
  if (!blockHash || !parentHash) return { kind: 'malformed', reason: 'its hash or parent hash is not a 32-byte hex value' };
  if (!Array.isArray(raw.transactions)) return { kind: 'malformed', reason: 'it has no list of transactions' };
  const header = { number, hash: blockHash, parentHash };
  const transfers: SeenTransfer[] = [];
  const skipped: SkippedItem[] = [];
  const skip = (reference: string, reason: string): void => void skipped.push({ reference, reason });
  raw.transactions.forEach((transaction: unknown, index) => {
    const reference = `block ${number} transaction ${index}`;
    // A hash instead of an object: the node ignored "full transactions"; nothing to read from it.
    if (!isObject(transaction)) return skip(reference, 'not a transaction object');
    const transactionHash = hash(transaction.hash);
    if (!transactionHash) return skip(reference, 'its hash is not a 32-byte hex value');
    const named = `${reference} (${transactionHash})`;
    // A contract creation has no recipient: not a transfer to anyone.
    if (transaction.to === null || transaction.to === undefined) return;
    if (typeof transaction.to !== 'string' || !ADDRESS.test(transaction.to)) return skip(named, 'its recipient is not an address');
    const value = quantity(transaction.value);
    if (value === undefined) return skip(named, 'its value is not a quantity');
    if (value === 0n) return;
    const inBlock = transaction.blockHash === undefined ? blockHash : hash(transaction.blockHash);
    if (inBlock !== blockHash) return skip(named, 'it names another block than the one it was listed in');
    transfers.push({
      transactionHash,
      logIndex: -1,
      transferIndex: -1,
      to: transaction.to.toLowerCase(),
      value,
      blockNumber: number,
      blockHash,
    });
  });
  return { kind: 'block', header, transfers, skipped };
}

/** ERC-20 Transfer logs of one token: the recipient and value of each. Logs marked `removed` (by a reorganisation) are not transfers. */
export function parseTransferLogs(raw: unknown, tokenAddress: string): { transfers: SeenTransfer[]; skipped: SkippedItem[] } {
  const transfers: SeenTransfer[] = [];
  const skipped: SkippedItem[] = [];
  if (!Array.isArray(raw)) return { transfers, skipped: [{ reference: 'eth_getLogs', reason: 'the answer is not a list' }] };
  const skip = (reference: string, reason: string): void => void skipped.push({ reference, reason });
  const token = tokenAddress.toLowerCase();
  const transferIndexOf = transferIndexes(raw, token);
  raw.forEach((log: unknown, index) => {
    if (!isObject(log)) return skip(`log ${index} of the answer`, 'not a log object');
    const blockNumber = quantity(log.blockNumber);
    const blockHash = hash(log.blockHash);
    const transactionHash = hash(log.transactionHash);
    const logIndex = quantity(log.logIndex);
    const reference = `block ${String(log.blockNumber)} transaction ${String(log.transactionHash)} log ${String(log.logIndex)}`;
    if (blockNumber === undefined || !blockHash || !transactionHash || logIndex === undefined || logIndex > 2_147_483_647n)
      return skip(reference, 'its block, transaction or log index is unreadable');
    if (log.removed === true) return;
    if (typeof log.address !== 'string' || log.address.toLowerCase() !== token)
      return skip(reference, 'it is not a log of the token asked for');
    const topics = log.topics;
    if (!Array.isArray(topics) || typeof topics[0] !== 'string' || topics[0].toLowerCase() !== ERC20_TRANSFER_TOPIC)
      return skip(reference, 'it is not a Transfer event');
    // ERC-20: from and to indexed, value in the data. Another shape (ERC-721's indexed id) is not a token transfer we read.
    const recipient = topics.length === 3 && typeof topics[2] === 'string' ? ADDRESS_TOPIC.exec(topics[2]) : null;
    if (!recipient || typeof topics[1] !== 'string' || !ADDRESS_TOPIC.test(topics[1]))
      return skip(reference, 'its topics are not those of an ERC-20 Transfer');
    if (typeof log.data !== 'string' || !WORD.test(log.data)) return skip(reference, 'its data is not one 32-byte value');
    const value = BigInt(log.data);
    if (value === 0n) return;
    transfers.push({
      transactionHash,
      logIndex: Number(logIndex),
      transferIndex: transferIndexOf(transactionHash, logIndex),
      to: `0x${recipient[1]!.toLowerCase()}`,
      value,
      blockNumber,
      blockHash,
    });
  });
  return { transfers, skipped };
}

/**
 * Each Transfer log's position among the token's Transfer logs of its transaction, by log index: the answer holds all of
 * them, as a range of whole blocks holds whole transactions. Counted over every log that names its transaction, index and
 * the event, before any is skipped for its shape or value, so a zero transfer or an odd one does not shift the others.
 */
function transferIndexes(raw: unknown[], token: string): (transactionHash: string, logIndex: bigint) => number {
  const byTransaction = new Map<string, bigint[]>();
  for (const log of raw) {
    if (!isObject(log) || log.removed === true) continue;
    const transactionHash = hash(log.transactionHash);
    const logIndex = quantity(log.logIndex);
    const topics = log.topics;
    if (!transactionHash || logIndex === undefined || typeof log.address !== 'string' || log.address.toLowerCase() !== token) continue;
    if (!Array.isArray(topics) || typeof topics[0] !== 'string' || topics[0].toLowerCase() !== ERC20_TRANSFER_TOPIC) continue;
    // A log the answer repeats is one log.
    const indexes = byTransaction.get(transactionHash) ?? [];
    if (!indexes.includes(logIndex)) indexes.push(logIndex);
    byTransaction.set(transactionHash, indexes);
  }
  return (transactionHash, logIndex) => (byTransaction.get(transactionHash) ?? []).filter((other) => other < logIndex).length;
}

/** A receipt's verdict: only an explicit 0x1 is a success; the block it names must be the one the transfer was seen in. */
export function receiptOutcome(raw: unknown, blockHash: string): 'success' | 'failed' | 'elsewhere' | 'unreadable' {
  if (raw === null) return 'elsewhere';
  if (!isObject(raw)) return 'unreadable';
  if (hash(raw.blockHash) !== blockHash) return 'elsewhere';
  if (raw.status === '0x1') return 'success';
  if (raw.status === '0x0') return 'failed';
  return 'unreadable';
}
