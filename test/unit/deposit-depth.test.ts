import { creditableUpTo } from '../../activities/deposit-depth';

/** Which blocks' deposits are credited: deep enough, read, and final where the network says what is final. */
describe('the highest block whose deposits are credited', () => {
  it('is the one with exactly the confirmations, when it is read', () => {
    expect(creditableUpTo({ head: 100n, confirmations: 3, lastRead: 100n })).toBe(98n);
    expect(creditableUpTo({ head: 100n, confirmations: 1, lastRead: 100n })).toBe(100n);
  });

  it('is never above the last block read', () => {
    expect(creditableUpTo({ head: 100n, confirmations: 3, lastRead: 40n })).toBe(40n);
  });

  it("is never above the node's finalized block, and nothing while the node names none", () => {
    expect(creditableUpTo({ head: 100n, confirmations: 3, lastRead: 100n, finalized: 64n })).toBe(64n);
    expect(creditableUpTo({ head: 100n, confirmations: 3, lastRead: 100n, finalized: 100n })).toBe(98n);
    expect(creditableUpTo({ head: 100n, confirmations: 3, lastRead: 100n, finalized: null })).toBe(-1n);
  });

  it('is below zero (nothing due) on a chain shorter than the confirmations', () => {
    expect(creditableUpTo({ head: 1n, confirmations: 12, lastRead: 1n })).toBeLessThan(0n);
  });
});
