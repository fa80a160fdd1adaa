/**
 * The highest block whose deposits may be credited, on every network: deep enough (head − block + 1 ≥ confirmations), read
 * (at or below the watcher's last block), and, where the network's nodes name a finalized block, at or below it (`null`:
 * none named yet, so nothing is final; `undefined`: the network has none). Below zero: nothing is due.
 */
export function creditableUpTo(input: { head: bigint; confirmations: number; lastRead: bigint; finalized?: bigint | null }): bigint {
  const bounds = [input.head - BigInt(input.confirmations) + 1n, input.lastRead];
  if (input.finalized !== undefined) bounds.push(input.finalized ?? -1n);
  return bounds.reduce((lowest, bound) => (bound < lowest ? bound : lowest));
}
