import type { MikroORM } from '@mikro-orm/postgresql';
import type pg from 'pg';
import type { Logger } from '../core/logger';

export interface Clock {
  now(): Date;
}

/** Everything activities touch, injected so tests can hand in their own (STYLE: createActivities). */
export interface ActivityDependencies {
  orm: MikroORM;
  pool: pg.Pool;
  clock: Clock;
  log: Logger;
}
