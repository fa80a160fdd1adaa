/** The one function of the `solc` npm package (solc-js) we use; it ships no types. */
declare module 'solc' {
  /** Standard JSON in, standard JSON out (https://docs.soliditylang.org/en/latest/using-the-compiler.html). */
  export function compile(input: string): string;
}
