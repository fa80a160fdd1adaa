/** The bench's scenarios, by the names `--only` takes. */

/** In the order they run; the statement counts last, so their quiet pauses lengthen nothing else. */
export const SCENARIOS = [
  'balances',
  'history',
  'history-curve',
  'ledger',
  'temporal',
  'exchange',
  'withdrawal',
  'btc',
  'sepa',
  'statements',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/** The table's order: the issue's. */
export const TABLE_ORDER: readonly string[] = [
  'balances',
  'history',
  'ledger',
  'exchange',
  'withdrawal',
  'btc',
  'sepa',
  'statements',
  'history-curve',
  'rss',
  'temporal',
];
