/** bitcoinjs' coinselect ships no types: what utxo-transaction-builder.ts uses of it. */
declare module 'coinselect' {
  interface Candidate {
    value: number;
    script?: { length: number };
  }
  interface Target {
    value?: number;
    script?: { length: number };
  }
  export default function coinSelect<T extends Candidate>(
    utxos: readonly T[],
    outputs: readonly Target[],
    feeRate: number,
  ): { inputs?: T[]; outputs?: Target[]; fee: number };
}
