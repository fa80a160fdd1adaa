import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import type { Currency } from '../../core/currencies';
import { EVM_CURRENCIES } from '../../core/networks';
import { postTransferDirectly } from '../ledger/ledger';
import { inPgTransaction } from '../pg-transaction';
import { utcText } from './utc-text';

/** Currencies whose accounts' wallet addresses are EVM addresses: any of them names its partner on every EVM network. */
export const EVM_ADDRESS_CURRENCIES = EVM_CURRENCIES;

export interface DepositAddressOwner {
  /** Lower case: what the chain's answers are compared with. */
  address: string;
  /** As the account stores it (and the balances show it). */
  walletAddress: string;
  partnerId: string;
  /** The partner's account per currency that may arrive on the network. */
  accounts: Partial<Record<Currency, string>>;
}

/**
 * The partners whose EVM accounts have these (lower-case) addresses, in one query, with their accounts in the arriving
 * currencies; an address two partners claim is left out, as `ambiguous`.
 */
export async function findDepositAddressOwners(
  pool: pg.Pool,
  addresses: readonly string[],
  arrivingCurrencies: readonly Currency[],
): Promise<{ owners: Map<string, DepositAddressOwner>; ambiguous: string[] }> {
  const owners = new Map<string, DepositAddressOwner>();
  const ambiguous = new Set<string>();
  if (addresses.length === 0) return { owners, ambiguous: [] };
  const result = await pool.query<{ address: string; wallet_address: string; partner_id: string; account_id: string; currency: Currency }>(
    `select lower(o.wallet_address) as address, o.wallet_address, o.partner_id, c.id as account_id, c.currency
       from account o
       join account c on c.kind = 'PARTNER' and c.partner_id = o.partner_id and c.currency = any($3::text[])
      where o.kind = 'PARTNER' and o.wallet_address is not null and o.currency = any($2::text[])
        and lower(o.wallet_address) = any($1::text[])`,
    [[...new Set(addresses)], EVM_ADDRESS_CURRENCIES, arrivingCurrencies],
  );
  for (const row of result.rows) {
    const known = owners.get(row.address);
    if (known && known.partnerId !== row.partner_id) ambiguous.add(row.address);
    const owner = known ?? { address: row.address, walletAddress: row.wallet_address, partnerId: row.partner_id, accounts: {} };
    owner.accounts[row.currency] = row.account_id;
    owners.set(row.address, owner);
  }
  for (const address of ambiguous) owners.delete(address);
  return { owners, ambiguous: [...ambiguous] };
}

/** The partners whose `currency` account has one of these addresses (UTXO networks: one address family per currency). */
export async function findUtxoDepositAddressOwners(
  db: pg.Pool | pg.ClientBase,
  currency: Currency,
  addresses: readonly string[],
): Promise<Map<string, { partnerId: string; accountId: string }>> {
  const owners = new Map<string, { partnerId: string; accountId: string }>();
  if (addresses.length === 0) return owners;
  const result = await db.query<{ address: string; partner_id: string; id: string }>(
    `select wallet_address as address, partner_id, id from account
      where kind = 'PARTNER' and currency = $1 and wallet_address = any($2::text[])`,
    [currency, [...new Set(addresses)]],
  );
  for (const row of result.rows) owners.set(row.address, { partnerId: row.partner_id, accountId: row.id });
  return owners;
}

export interface NewCryptoDeposit {
  id: string;
  partnerId: string;
  accountId: string;
  network: string;
  currency: Currency;
  /** Exact decimal text. */
  amount: string;
  transactionHash: string;
  /** Which transfer of its transaction: what a reorganisation cannot change (the crypto_deposit column's comment). */
  transferIndex: number;
  blockNumber: bigint;
  blockHash: string;
  address: string;
  /** IN_PROGRESS, or UNSUCCESSFUL when below the network's minimum deposit. */
  status: 'IN_PROGRESS' | 'UNSUCCESSFUL';
}

/**
 * Records what a batch saw, in one statement, answering the rows it inserted. A live deposit already recorded stays,
 * except a credited one whose block was orphaned: seen again paying the same address the same amount, it takes its new
 * block; a transaction that did otherwise when mined again leaves the finding for operators.
 */
export async function insertCryptoDeposits(
  client: pg.ClientBase,
  deposits: readonly NewCryptoDeposit[],
  now: Date,
): Promise<Array<{ id: string; currency: Currency; status: string }>> {
  if (deposits.length === 0) return [];
  const column = <T>(read: (deposit: NewCryptoDeposit) => T) => deposits.map(read);
  const result = await client.query<{ id: string; currency: Currency; status: string; inserted: boolean }>(
    `insert into crypto_deposit (id, partner_id, account_id, network, currency, amount, transaction_hash, transfer_index,
                                 block_number, block_hash, address, status, stage, failure_reason, created_at)
     select d.id, d.partner_id, d.account_id, d.network, d.currency, d.amount, d.transaction_hash, d.transfer_index,
            d.block_number, d.block_hash, d.address, d.status,
            case d.status when 'IN_PROGRESS' then 'SEEN' else 'BELOW_MINIMUM' end,
            case d.status when 'IN_PROGRESS' then null else 'BELOW_MINIMUM_DEPOSIT' end, $13
       from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::numeric[], $7::text[], $8::int[],
                   $9::bigint[], $10::text[], $11::text[], $12::text[])
            as d(id, partner_id, account_id, network, currency, amount, transaction_hash, transfer_index,
                 block_number, block_hash, address, status)
     on conflict (network, transaction_hash, transfer_index) where stage <> 'ORPHANED'
     do update set block_number = excluded.block_number, block_hash = excluded.block_hash, block_orphaned_at = null
        where crypto_deposit.block_orphaned_at is not null
          and crypto_deposit.amount = excluded.amount and lower(crypto_deposit.address) = lower(excluded.address)
     returning id, currency, status, (xmax = 0) as inserted`,
    [
      column((deposit) => deposit.id),
      column((deposit) => deposit.partnerId),
      column((deposit) => deposit.accountId),
      column((deposit) => deposit.network),
      column((deposit) => deposit.currency),
      column((deposit) => deposit.amount),
      column((deposit) => deposit.transactionHash),
      column((deposit) => deposit.transferIndex),
      column((deposit) => deposit.blockNumber.toString()),
      column((deposit) => deposit.blockHash),
      column((deposit) => deposit.address),
      column((deposit) => deposit.status),
      now,
    ],
  );
  return result.rows.filter((row) => row.inserted).map(({ id, currency, status }) => ({ id, currency, status }));
}

/**
 * The blocks above `forkPoint` were removed: deposits seen there end ORPHANED (UNSUCCESSFUL unless below the minimum);
 * credited ones keep their credit, marked for reconciliation.
 */
export async function orphanCryptoDeposits(
  client: pg.ClientBase,
  network: string,
  forkPoint: bigint,
  now: Date,
): Promise<{ orphaned: Array<{ id: string; currency: Currency }>; credited: string[] }> {
  const above = [network, forkPoint.toString()];
  const orphaned = await client.query<{ id: string; currency: Currency }>(
    `update crypto_deposit set status = 'UNSUCCESSFUL', stage = 'ORPHANED', failure_reason = 'REMOVED_BY_REORGANISATION'
      where network = $1 and block_number > $2 and stage = 'SEEN' returning id, currency`,
    above,
  );
  await client.query(
    `update crypto_deposit set stage = 'ORPHANED' where network = $1 and block_number > $2 and stage = 'BELOW_MINIMUM'`,
    above,
  );
  const credited = await client.query<{ id: string }>(
    `update crypto_deposit set block_orphaned_at = $3
      where network = $1 and block_number > $2 and stage = 'CREDITED' and block_orphaned_at is null returning id`,
    [...above, now],
  );
  return { orphaned: orphaned.rows, credited: credited.rows.map((row) => row.id) };
}

/** Deposits of the network seen at or below `upTo` and not yet credited, oldest block first. */
export async function findDueCryptoDeposits(pool: pg.Pool, network: string, upTo: bigint, limit: number): Promise<string[]> {
  const result = await pool.query<{ id: string }>(
    `select id from crypto_deposit where network = $1 and stage = 'SEEN' and block_number <= $2
      order by block_number, id limit $3`,
    [network, upTo.toString(), limit],
  );
  return result.rows.map((row) => row.id);
}

/**
 * Credits one deposit (its transfer from EXTERNAL_DEPOSITS under its id) under its row lock: safe to run twice or beside
 * a rewind, as whoever locks second finds it credited or orphaned.
 */
export async function creditCryptoDeposit(pool: pg.Pool, id: string, now: Date): Promise<{ credited: boolean; currency?: Currency }> {
  return inPgTransaction(pool, async (client) => {
    const found = await client.query<{ account_id: string; currency: Currency; amount: string; stage: string }>(
      'select account_id, currency, amount::text, stage from crypto_deposit where id = $1 for update',
      [id],
    );
    const deposit = found.rows[0];
    if (!deposit || deposit.stage !== 'SEEN') return { credited: false };
    await postTransferDirectly(
      client,
      {
        transferId: id,
        kind: 'DEPOSIT',
        postings: [
          { systemAccount: 'EXTERNAL_DEPOSITS', currency: deposit.currency, amount: `-${deposit.amount}` },
          { accountId: deposit.account_id, amount: deposit.amount },
        ],
      },
      now,
    );
    await client.query(`update crypto_deposit set status = 'SUCCESSFUL', stage = 'CREDITED', credited_at = $2 where id = $1`, [id, now]);
    return { credited: true, currency: deposit.currency };
  });
}

export interface ListedCryptoDeposit {
  id: string;
  partnerId: string;
  network: string;
  currency: string;
  /** Exact decimal text without trailing zeros. */
  amount: string;
  transactionHash: string;
  transferIndex: number;
  blockNumber: string;
  address: string;
  /** ISO 8601 UTC. */
  seenAt: string;
}

const LISTED_COLUMNS = `id, partner_id as "partnerId", network, currency, trim_scale(amount)::text as amount,
  transaction_hash as "transactionHash", transfer_index as "transferIndex", block_number::text as "blockNumber", address,
  ${utcText('created_at')} as "seenAt"`;

/** Deposits found on chain for operators, newest first: all or only those below the minimum, of one partner or all. */
export async function findCryptoDeposits(
  em: EntityManager,
  filter: { belowMinimum: boolean; partnerId: string | undefined; limit: number },
): Promise<Array<ListedCryptoDeposit & { status: string; stage: string }>> {
  return em.execute(
    `select ${LISTED_COLUMNS}, status, stage from crypto_deposit
      where (not ? or stage = 'BELOW_MINIMUM') and (?::uuid is null or partner_id = ?::uuid)
      order by created_at desc, id desc limit ?`,
    [filter.belowMinimum, filter.partnerId ?? null, filter.partnerId ?? null, filter.limit],
  );
}

/** Credited deposits whose block a reorganisation removed: a reconciliation finding (at most 100). */
export async function findOrphanedCreditedDeposits(pool: pg.Pool): Promise<Array<ListedCryptoDeposit & { blockOrphanedAt: string }>> {
  const result = await pool.query<ListedCryptoDeposit & { blockOrphanedAt: string }>(
    `select ${LISTED_COLUMNS}, ${utcText('block_orphaned_at')} as "blockOrphanedAt"
       from crypto_deposit where block_orphaned_at is not null order by block_orphaned_at limit 100`,
  );
  return result.rows;
}
