import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { openPool, withClient } from '../database';

/** The ceiling's own database on the project's Postgres, so neither schema sees the other's rows. */
export const CEILING_DATABASE = 'bench_ledger_ceiling';

/**
 * The least a transfer can cost in plain SQL, written for the bench: two account rows, a
 * transfer row and its two postings, in one transaction. No holds, no idempotency, no trigger:
 * what the project's ledger does beyond this is what the ratio measures.
 */
const SCHEMA = `
create table if not exists account (
  id bigint primary key,
  balance numeric(38,18) not null check (balance >= 0)
);
create table if not exists transfer (
  id uuid primary key,
  created_at timestamptz not null default now()
);
create table if not exists posting (
  transfer_id uuid not null references transfer(id),
  account_id bigint not null references account(id),
  amount numeric(38,18) not null
);
`;

export interface PlainSqlLedger {
  pool: pg.Pool;
  /** Caller i moves money from its source row to its own destination row, so callers never share a row. */
  transfer(caller: number, amount: string): Promise<void>;
  close(): Promise<void>;
}

/** Creates the database and its schema (on a fresh stack; idempotent), and one funded source row and one destination row per caller. */
export async function openPlainSqlLedger(projectDatabaseUrl: string, callers: number, poolMax: number): Promise<PlainSqlLedger> {
  await withClient(projectDatabaseUrl, async (admin) => {
    const exists = await admin.query('select 1 from pg_database where datname = $1', [CEILING_DATABASE]);
    if (exists.rowCount === 0) await admin.query(`create database ${CEILING_DATABASE}`);
  });
  const url = new URL(projectDatabaseUrl);
  url.pathname = `/${CEILING_DATABASE}`;
  const pool = openPool(url.toString(), poolMax);
  await pool.query(SCHEMA);
  await pool.query(
    `insert into account (id, balance)
     select caller * 2 + side, case side when 0 then 1000000000 else 0 end
       from generate_series(0, $1 - 1) as caller, generate_series(0, 1) as side
     on conflict (id) do nothing`,
    [callers],
  );
  return {
    pool,
    transfer: (caller, amount) => transfer(pool, caller * 2, caller * 2 + 1, amount),
    close: () => pool.end(),
  };
}

async function transfer(pool: pg.Pool, sourceId: number, destinationId: number, amount: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const source = await client.query<{ balance: string }>('update account set balance = balance - $2 where id = $1 returning balance', [
      sourceId,
      amount,
    ]);
    const destination = await client.query<{ balance: string }>(
      'update account set balance = balance + $2 where id = $1 returning balance',
      [destinationId, amount],
    );
    if (source.rowCount !== 1 || destination.rowCount !== 1) throw new Error('plain-SQL transfer: an account row is missing');
    const transferId = randomUUID();
    await client.query('insert into transfer (id) values ($1)', [transferId]);
    await client.query('insert into posting (transfer_id, account_id, amount) values ($1, $2, -$4::numeric), ($1, $3, $4::numeric)', [
      transferId,
      sourceId,
      destinationId,
      amount,
    ]);
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
