import { Migration20261201000000_baseline } from './Migration20261201000000_baseline';

/** Listed so they run the same from sources and compiled output; only ever appended to (docs/production.md, "Schema changes"). */
export const MIGRATIONS = [{ name: 'Migration20261201000000_baseline', class: Migration20261201000000_baseline }];
