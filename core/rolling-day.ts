/** The daily EUR limit's and travel-rule sum's window; rolling, so splitting around midnight gains nothing. */
export const ROLLING_DAY_MS = 24 * 60 * 60 * 1000;
