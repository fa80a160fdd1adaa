import { createHash } from 'node:crypto';
import type { BroadcastRequest } from '../../activities/adapters/chain/chain-adapter';
import {
  MAX_REMEMBERED_BROADCASTS,
  SimulatedChainAdapter,
  simulatedTransactionHash,
} from '../../activities/adapters/chain/simulated-chain.adapter';
import type { CryptoCurrency } from '../../core/currencies';
import type { Network } from '../../core/networks';

const DELAY_MS = 30_000;

function request(overrides: Partial<BroadcastRequest> = {}): BroadcastRequest {
  return {
    withdrawalId: '7d3c9a10-2b4e-4f60-9a1b-2c3d4e5f6a7b',
    currency: 'eth',
    network: 'ethereum',
    destination: '0x52908400098527886E0F7030069857D2E4169EE7',
    amount: '0.123456789012345678',
    memo: null,
    ...overrides,
  };
}

describe('simulatedTransactionHash', () => {
  it('is the sha256 of withdrawalId|network|destination|amount', () => {
    const sha = createHash('sha256')
      .update('7d3c9a10-2b4e-4f60-9a1b-2c3d4e5f6a7b|ethereum|0x52908400098527886E0F7030069857D2E4169EE7|0.123456789012345678')
      .digest('hex');
    expect(simulatedTransactionHash(request())).toBe(`0x${sha}`);
  });

  it('gives the same hash for the same request every time', () => {
    expect(simulatedTransactionHash(request())).toBe(simulatedTransactionHash(request()));
  });

  it('gives a different hash when the withdrawal, destination or amount differs', () => {
    const base = simulatedTransactionHash(request());
    expect(simulatedTransactionHash(request({ withdrawalId: 'another' }))).not.toBe(base);
    expect(simulatedTransactionHash(request({ destination: '0x0000000000000000000000000000000000000001' }))).not.toBe(base);
    expect(simulatedTransactionHash(request({ amount: '0.123456789012345679' }))).not.toBe(base);
  });

  it.each<[Network, CryptoCurrency]>([
    ['ethereum', 'eth'],
    ['polygon', 'usdc'],
  ])('writes %s hashes as 0x followed by 64 hex digits', (network, currency) => {
    expect(simulatedTransactionHash(request({ network, currency }))).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it.each<[Network, CryptoCurrency]>([
    ['bitcoin', 'btc'],
    ['litecoin', 'ltc'],
    ['dogecoin', 'doge'],
  ])('writes %s hashes as 64 bare hex digits', (network, currency) => {
    expect(simulatedTransactionHash(request({ network, currency, destination: 'tb1qexampledestination' }))).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('SimulatedChainAdapter', () => {
  let clock: Date;
  const chain = (): SimulatedChainAdapter => new SimulatedChainAdapter({ confirmationDelayMs: DELAY_MS, now: () => clock });

  beforeEach(() => {
    clock = new Date('2026-03-01T12:00:00.000Z');
  });

  it('broadcasts with the deterministic hash and the current time', async () => {
    await expect(chain().broadcast(request())).resolves.toEqual({
      transactionHash: simulatedTransactionHash(request()),
      broadcastAt: '2026-03-01T12:00:00.000Z',
    });
  });

  it('answers a repeated broadcast of the same withdrawal with the first hash and first time', async () => {
    const adapter = chain();
    const first = await adapter.broadcast(request());
    clock = new Date('2026-03-01T12:05:00.000Z');
    await expect(adapter.broadcast(request())).resolves.toEqual(first);
  });

  it('refuses to broadcast the same withdrawal again with different details', async () => {
    const adapter = chain();
    await adapter.broadcast(request());
    await expect(adapter.broadcast(request({ amount: '1' }))).rejects.toThrow(/already broadcast with different details/);
  });

  it('remembers the latest broadcasts only: the oldest gets a fresh time when broadcast again, the ones after it keep theirs', async () => {
    const adapter = chain();
    const first = await adapter.broadcast(request({ withdrawalId: 'w-0' }));
    const second = await adapter.broadcast(request({ withdrawalId: 'w-1' }));
    clock = new Date('2026-03-01T12:05:00.000Z');
    for (let index = 2; index <= MAX_REMEMBERED_BROADCASTS; index += 1) await adapter.broadcast(request({ withdrawalId: `w-${index}` }));
    // w-0 is one past the bound: forgotten, so a re-broadcast is as after a restart.
    await expect(adapter.broadcast(request({ withdrawalId: 'w-0' }))).resolves.toEqual({
      transactionHash: first.transactionHash,
      broadcastAt: '2026-03-01T12:05:00.000Z',
    });
    // That re-broadcast pushed w-1 out in its turn; w-2 is still remembered.
    await expect(adapter.broadcast(request({ withdrawalId: 'w-2', amount: '1' }))).rejects.toThrow(/different details/);
    expect(second.broadcastAt).toBe('2026-03-01T12:00:00.000Z');
    await expect(adapter.broadcast(request({ withdrawalId: 'w-1' }))).resolves.toMatchObject({ broadcastAt: '2026-03-01T12:05:00.000Z' });
  });

  it('reports PENDING until the confirmation delay has passed since broadcast, then CONFIRMED', async () => {
    const adapter = chain();
    const { transactionHash, broadcastAt } = await adapter.broadcast(request());
    const ask = () => adapter.confirmationState({ network: 'ethereum', transactionHash, broadcastAt });

    await expect(ask()).resolves.toBe('PENDING');
    clock = new Date(Date.parse(broadcastAt) + DELAY_MS - 1);
    await expect(ask()).resolves.toBe('PENDING');
    clock = new Date(Date.parse(broadcastAt) + DELAY_MS);
    await expect(ask()).resolves.toBe('CONFIRMED');
  });

  it('judges confirmation by the broadcastAt it is given, so a restarted process agrees', async () => {
    const { transactionHash, broadcastAt } = await chain().broadcast(request());
    clock = new Date(Date.parse(broadcastAt) + DELAY_MS);
    const restarted = chain();
    await expect(restarted.confirmationState({ network: 'ethereum', transactionHash, broadcastAt })).resolves.toBe('CONFIRMED');
  });

  it('refuses a broadcastAt that is not a time', async () => {
    await expect(chain().confirmationState({ network: 'bitcoin', transactionHash: 'ab', broadcastAt: 'yesterday' })).rejects.toThrow(
      /broadcastAt/,
    );
  });
});
