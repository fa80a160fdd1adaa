import {
  ERC20_TRANSFER_TOPIC,
  parseBlock,
  parseTransferLogs,
  receiptOutcome,
} from '../../activities/adapters/chain/evm/evm-deposit-parsing';
import { unitsToDecimal } from '../../core/money';

/** What the deposit watcher reads out of a node's raw answers, and what it refuses to read: hostile answers named and skipped. */

const hash = (digit: string) => `0x${digit.repeat(64)}`;
const BLOCK_HASH = hash('a');
const PARENT_HASH = hash('b');
const RECIPIENT = '0x52908400098527886E0F7030069857D2E4169EE7';
const TOKEN = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const topicOf = (address: string) => `0x${'0'.repeat(24)}${address.slice(2).toLowerCase()}`;

function block(transactions: unknown[], overrides: Record<string, unknown> = {}) {
  return { number: '0x10', hash: BLOCK_HASH, parentHash: PARENT_HASH, transactions, ...overrides };
}

function transaction(overrides: Record<string, unknown> = {}) {
  return { hash: hash('c'), to: RECIPIENT, value: '0xde0b6b3a7640000', blockHash: BLOCK_HASH, ...overrides };
}

function log(overrides: Record<string, unknown> = {}) {
  return {
    address: TOKEN,
    topics: [ERC20_TRANSFER_TOPIC, topicOf('0x1111111111111111111111111111111111111111'), topicOf(RECIPIENT)],
    data: `0x${12_500_000n.toString(16).padStart(64, '0')}`,
    blockNumber: '0x10',
    blockHash: BLOCK_HASH,
    transactionHash: hash('d'),
    logIndex: '0x3',
    removed: false,
    ...overrides,
  };
}

describe('reading a block for native transfers', () => {
  it('keeps value transfers with their recipient in lower case, block and a log index of -1', () => {
    const parsed = parseBlock(block([transaction()]), 16n);
    expect(parsed).toEqual({
      kind: 'block',
      header: { number: 16n, hash: BLOCK_HASH, parentHash: PARENT_HASH },
      transfers: [
        {
          transactionHash: hash('c'),
          logIndex: -1,
          transferIndex: -1,
          to: RECIPIENT.toLowerCase(),
          value: 10n ** 18n,
          blockNumber: 16n,
          blockHash: BLOCK_HASH,
        },
      ],
      skipped: [],
    });
  });

  it('passes over contract creations and transactions without value, which transfer nothing', () => {
    const parsed = parseBlock(block([transaction({ to: null }), transaction({ value: '0x0' }), transaction({ to: undefined })]), 16n);
    expect(parsed).toMatchObject({ kind: 'block', transfers: [], skipped: [] });
  });

  it.each([
    ['a hash instead of a transaction', 'not-an-object', 'not a transaction object'],
    ['no hash', transaction({ hash: '0x12' }), 'its hash is not a 32-byte hex value'],
    ['a recipient that is no address', transaction({ to: '0xnot-an-address' }), 'its recipient is not an address'],
    ['a value that is no quantity', transaction({ value: '12' }), 'its value is not a quantity'],
    ['a value beyond 256 bits', transaction({ value: `0x1${'0'.repeat(64)}` }), 'its value is not a quantity'],
    ['another block', transaction({ blockHash: hash('e') }), 'it names another block than the one it was listed in'],
  ])('skips a transaction with %s, naming it, and keeps the others', (_case, bad, reason) => {
    const parsed = parseBlock(block([bad, transaction({ hash: hash('f') })]), 16n);
    if (parsed.kind !== 'block') throw new Error('expected a block');
    expect(parsed.transfers.map((transfer) => transfer.transactionHash)).toEqual([hash('f')]);
    expect(parsed.skipped).toEqual([{ reference: expect.stringMatching(/^block 16 transaction 0/), reason }]);
  });

  it.each([
    ['null', null],
    ['another number', block([], { number: '0x11' })],
    ['no hash', block([], { hash: undefined })],
    ['a short parent hash', block([], { parentHash: '0xabc' })],
    ['no transaction list', block([], { transactions: 'many' })],
  ])('calls a block with %s malformed: none of it is trusted', (_case, raw) => {
    expect(parseBlock(raw, 16n)).toMatchObject({ kind: 'malformed', reason: expect.any(String) });
  });
});

describe('reading the token Transfer logs of a range', () => {
  it('keeps ERC-20 transfers: recipient, value, block, transaction and log index', () => {
    expect(parseTransferLogs([log()], TOKEN)).toEqual({
      transfers: [
        {
          transactionHash: hash('d'),
          logIndex: 3,
          transferIndex: 0,
          to: RECIPIENT.toLowerCase(),
          value: 12_500_000n,
          blockNumber: 16n,
          blockHash: BLOCK_HASH,
        },
      ],
      skipped: [],
    });
  });

  it("keys a transfer by its place among the token's Transfer logs of its transaction, which a new place in a block does not change", () => {
    const other = hash('e');
    const atFirst = parseTransferLogs(
      [
        log({ transactionHash: other, logIndex: '0x0' }),
        log({ logIndex: '0x1' }),
        log({ logIndex: '0x2', address: '0x1111111111111111111111111111111111111111' }),
        log({ logIndex: '0x3', data: `0x${'0'.repeat(64)}` }),
        log({ logIndex: '0x4' }),
      ],
      TOKEN,
    );
    // The same transaction mined again first in another block: its logs from 0, the other transaction's after them.
    const again = parseTransferLogs(
      [
        log({ logIndex: '0x0', blockHash: hash('9') }),
        log({ logIndex: '0x1', blockHash: hash('9'), address: '0x1111111111111111111111111111111111111111' }),
        log({ logIndex: '0x2', blockHash: hash('9'), data: `0x${'0'.repeat(64)}` }),
        log({ logIndex: '0x3', blockHash: hash('9') }),
        log({ transactionHash: other, logIndex: '0x4', blockHash: hash('9') }),
      ],
      TOKEN,
    );
    const keys = (parsed: ReturnType<typeof parseTransferLogs>) =>
      parsed.transfers.map((transfer) => [transfer.transactionHash, transfer.logIndex, transfer.transferIndex]);
    // Another contract's log is not counted; a Transfer of nothing is (it is a transfer of the transaction), and not kept.
    expect(keys(atFirst)).toEqual([
      [other, 0, 0],
      [hash('d'), 1, 0],
      [hash('d'), 4, 2],
    ]);
    expect(keys(again)).toEqual([
      [hash('d'), 0, 0],
      [hash('d'), 3, 2],
      [other, 4, 0],
    ]);
  });

  it('passes over logs a reorganisation removed and transfers of nothing', () => {
    expect(parseTransferLogs([log({ removed: true }), log({ data: `0x${'0'.repeat(64)}` })], TOKEN)).toEqual({
      transfers: [],
      skipped: [],
    });
  });

  it.each([
    ['another contract', log({ address: '0x1111111111111111111111111111111111111111' }), 'it is not a log of the token asked for'],
    ['another event', log({ topics: [hash('1'), topicOf(RECIPIENT), topicOf(RECIPIENT)] }), 'it is not a Transfer event'],
    [
      "ERC-721's shape (the id indexed)",
      log({ topics: [ERC20_TRANSFER_TOPIC, topicOf(RECIPIENT), topicOf(RECIPIENT), hash('1')] }),
      'its topics are not those of an ERC-20 Transfer',
    ],
    [
      'a recipient topic that is no address',
      log({ topics: [ERC20_TRANSFER_TOPIC, topicOf(RECIPIENT), hash('f')] }),
      'its topics are not those of an ERC-20 Transfer',
    ],
    ['data that is not one word', log({ data: '0x01' }), 'its data is not one 32-byte value'],
    ['no log index', log({ logIndex: null }), 'its block, transaction or log index is unreadable'],
  ])('skips a log of %s, naming its block, transaction and index', (_case, bad, reason) => {
    const parsed = parseTransferLogs([bad, log({ logIndex: '0x4' })], TOKEN);
    expect(parsed.transfers.map((transfer) => transfer.logIndex)).toEqual([4]);
    expect(parsed.skipped).toEqual([{ reference: expect.stringContaining('block 0x10'), reason }]);
  });

  it('reads an answer that is not a list as nothing, and says so', () => {
    expect(parseTransferLogs({ error: 'too many' }, TOKEN)).toEqual({
      transfers: [],
      skipped: [{ reference: 'eth_getLogs', reason: 'the answer is not a list' }],
    });
  });
});

describe('a receipt', () => {
  it('is a success only with status 0x1 in the block the transfer was seen in', () => {
    expect(receiptOutcome({ status: '0x1', blockHash: BLOCK_HASH }, BLOCK_HASH)).toBe('success');
    expect(receiptOutcome({ status: '0x0', blockHash: BLOCK_HASH }, BLOCK_HASH)).toBe('failed');
    expect(receiptOutcome({ status: '0x01', blockHash: BLOCK_HASH }, BLOCK_HASH)).toBe('unreadable');
    expect(receiptOutcome({ status: '0x1', blockHash: hash('e') }, BLOCK_HASH)).toBe('elsewhere');
    expect(receiptOutcome(null, BLOCK_HASH)).toBe('elsewhere');
    expect(receiptOutcome('0x1', BLOCK_HASH)).toBe('unreadable');
  });
});

describe('amounts in whole units', () => {
  it.each([
    [10n ** 18n, 18, '1'],
    [1n, 18, '0.000000000000000001'],
    [12_500_000n, 6, '12.5'],
    [0n, 6, '0'],
    [123_456_789_012_345_678_901_234_567_890n, 18, '123456789012.34567890123456789'],
  ])('%s at %s decimals is %s, exactly', (units, decimals, expected) => {
    expect(unitsToDecimal(units, decimals)).toBe(expected);
  });

  it('refuses negative values and impossible decimals', () => {
    expect(() => unitsToDecimal(-1n, 6)).toThrow();
    expect(() => unitsToDecimal(1n, 78)).toThrow();
  });
});
