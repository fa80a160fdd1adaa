import { Migration20261201000000_baseline } from './Migration20261201000000_baseline';

/**
 * Listed explicitly so migrations run the same from TypeScript sources and compiled output. The
 * baseline stays first: from the first deployment on, migrations are only added after it, never
 * edited or squashed (docs/production.md, "Schema changes").
 */
export const MIGRATIONS = [{ name: 'Migration20261201000000_baseline', class: Migration20261201000000_baseline }];
