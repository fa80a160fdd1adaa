/**
 * The window of the per-partner controls that add operations up: the daily EUR limit and the
 * travel-rule sum per destination. Rolling, not a calendar day: splitting around midnight gains nothing.
 */
export const ROLLING_DAY_MS = 24 * 60 * 60 * 1000;
