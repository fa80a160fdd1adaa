import { Migration20261122000000_foundation } from './Migration20261122000000_foundation';

/** Listed explicitly so migrations run the same from TypeScript sources and compiled output. */
export const MIGRATIONS = [{ name: 'Migration20261122000000_foundation', class: Migration20261122000000_foundation }];
