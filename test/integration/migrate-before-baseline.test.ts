import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { migrate } from '../../db/orm';
import { testStack } from '../support/stack';

/**
 * A database migrated by the migrations the baseline replaced (a development data folder from
 * then) is refused by `npm run migrate`, saying what to do, and left as it was. Runs on a database
 * of its own, created and dropped here.
 */
const database = `before_baseline_${randomUUID().replaceAll('-', '')}`;
const url = (): string => {
  const address = new URL(testStack().databaseAdminUrl!);
  address.pathname = `/${database}`;
  return address.toString();
};

let admin: pg.Client;
let db: pg.Client;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: testStack().databaseAdminUrl! });
  await admin.connect();
  await admin.query(`create database ${database}`);
  db = new pg.Client({ connectionString: url() });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
  await admin.query(`drop database if exists ${database}`);
  await admin.end();
});

it('refuses a database migrated before the baseline, saying what to do, and changes nothing', async () => {
  // MikroORM's bookkeeping as the replaced migrations left it.
  await db.query(
    `create table mikro_orm_migrations (id serial primary key, name varchar(255), executed_at timestamptz default current_timestamp)`,
  );
  await db.query(`insert into mikro_orm_migrations (name) values ('Migration20261122000000_foundation')`);

  await expect(migrate(url())).rejects.toThrow(
    /^the database predates the schema's baseline Migration20261201000000_baseline, .*nothing was changed\. For npm start's development data, delete its data folder/,
  );
  const tables = await db.query<{ name: string }>(`select tablename as name from pg_tables where schemaname = 'public'`);
  expect(tables.rows).toEqual([{ name: 'mikro_orm_migrations' }]);
});
