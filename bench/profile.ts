/** How long each kind of run lasts; `--long` for steadier figures, the default to stay under 5 minutes on 2 cores. */
export interface Profile {
  name: 'short' | 'long';
  /** Project/ceiling pairs per scenario (A B A B is 2). */
  rounds: number;
  /** One unrecorded run of each side first (JIT, caches, connection pools). */
  warmupMs: number;
  httpMs: number;
  ledgerMs: number;
  workflowMs: number;
  historyCurveMs: number;
  /** Each money movement's run while Postgres counts its statements. */
  statementsMs: number;
}

export const PROFILES: Readonly<Record<Profile['name'], Profile>> = {
  short: {
    name: 'short',
    rounds: 2,
    warmupMs: 1_000,
    httpMs: 3_000,
    ledgerMs: 3_000,
    workflowMs: 5_000,
    historyCurveMs: 2_000,
    statementsMs: 5_000,
  },
  long: {
    name: 'long',
    rounds: 2,
    warmupMs: 3_000,
    httpMs: 15_000,
    ledgerMs: 10_000,
    workflowMs: 20_000,
    historyCurveMs: 10_000,
    statementsMs: 10_000,
  },
};
