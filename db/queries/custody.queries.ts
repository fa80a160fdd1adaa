import type pg from 'pg';

/**
 * Per currency, as exact text: partners' available balances and the holds of withdrawals not handed off (coins still
 * ours to pay out). A handed-off hold may have left already, so is not counted: erring towards no finding.
 */
export async function findCustodyObligations(
  db: pg.Pool | pg.PoolClient,
  currencies: readonly string[],
): Promise<Map<string, { available: string; heldForWithdrawals: string }>> {
  const result = await db.query<{ currency: string; available: string; held: string }>(
    `select c.currency,
            coalesce((select sum(a.posted_amount - a.pending_out_amount) from account a
                       where a.kind = 'PARTNER' and a.currency = c.currency), 0)::text as available,
            coalesce((select sum(-p.amount) from crypto_withdrawal w
                        join ledger_transfer t on t.id = w.id and t.state = 'PENDING'
                        join ledger_posting p on p.transfer_id = t.id and p.amount < 0
                        join account a on a.id = p.account_id and a.kind = 'PARTNER'
                       where w.currency = c.currency and w.handed_off_at is null), 0)::text as held
       from unnest($1::text[]) as c(currency)`,
    [currencies],
  );
  return new Map(result.rows.map((row) => [row.currency, { available: row.available, heldForWithdrawals: row.held }]));
}

/**
 * The network's deposit addresses that can hold credited coins (deposits not yet swept), not every partner's: what the
 * ledger owes sits there or in the hot wallet. At most `limit`, oldest credit first; the rest as sums (`unread`).
 */
export async function findCustodyAddresses(
  db: pg.Pool | pg.PoolClient,
  network: string,
  limit: number,
): Promise<{ addresses: string[]; unread: Map<string, string>; unreadAddresses: number }> {
  // Both parts are small, through partial indexes: credited deposits no sweep took, and the deposits of sweeps not SWEPT.
  const candidates = `candidate as (
      select lower(d.address) as address, d.currency, d.amount, d.credited_at from crypto_deposit d
       where d.network = $1 and d.stage = 'CREDITED' and d.sweep_id is null
      union all
      select lower(d.address), d.currency, d.amount, d.credited_at from evm_sweep s join crypto_deposit d on d.sweep_id = s.id
       where s.network = $1 and s.status <> 'SWEPT')`;
  const read = await db.query<{ address: string; total: string }>(
    `with ${candidates}
     select address, count(*) over ()::text as total from candidate group by address order by min(credited_at), address limit $2`,
    [network, limit],
  );
  const addresses = read.rows.map((row) => row.address);
  const total = Number(read.rows[0]?.total ?? 0);
  if (total <= addresses.length) return { addresses, unread: new Map(), unreadAddresses: 0 };
  const unread = await db.query<{ currency: string; credited: string }>(
    `with ${candidates}
     select currency, sum(amount)::text as credited from candidate where address <> all($2::text[]) group by currency`,
    [network, addresses],
  );
  return {
    addresses,
    unread: new Map(unread.rows.map((row) => [row.currency, row.credited])),
    unreadAddresses: total - addresses.length,
  };
}

/** An output custody reconciliation asks a UTXO node about: a hot wallet coin or a credited deposit; amount in whole coins. */
export interface UtxoCustodyOutput {
  txid: string;
  vout: number;
  amount: string;
  holder: 'HOT_WALLET' | 'DEPOSIT_ADDRESS';
}

/** The hot wallet's coins first (what a stolen key would take), then the deposits', oldest first. */
const ORDER = `order by (holder = 'HOT_WALLET') desc, since, txid, vout`;

/**
 * A UTXO network's outputs that hold what the ledger owes: the hot wallet's coins not spent by a settled withdrawal (a
 * sweep's coin among them once the scanner saw it), and the deposits' outputs, credited or below the minimum, that no
 * confirmed sweep spent. At most `limit`; the rest as a sum (`unread`), taken as held.
 */
export async function findUtxoCustodyOutputs(
  db: pg.Pool | pg.PoolClient,
  network: string,
  scale: number,
  limit: number,
): Promise<{ outputs: UtxoCustodyOutput[]; unread: string; unreadOutputs: number }> {
  const candidates = `candidate as (
      select c.txid, c.vout, trim_scale((c.value_base_units / power(10::numeric, $2))::numeric(38, 18)) as amount,
             'HOT_WALLET' as holder, c.found_at as since
        from utxo_coin c left join crypto_withdrawal w on w.id = c.reserved_for
       where c.network = $1 and (c.reserved_for is null or w.status is distinct from 'SUCCESSFUL')
      union all
      select d.transaction_hash, d.transfer_index, trim_scale(d.amount), 'DEPOSIT_ADDRESS', d.created_at from crypto_deposit d
        left join utxo_sweep s on s.id = d.utxo_sweep_id
       where d.network = $1 and d.stage in ('CREDITED', 'BELOW_MINIMUM') and d.block_orphaned_at is null
         and s.status is distinct from 'SWEPT')`;
  const read = await db.query<UtxoCustodyOutput & { total: string }>(
    `with ${candidates}
     select txid, vout, amount::text, holder, count(*) over ()::text as total from candidate ${ORDER} limit $3`,
    [network, scale, limit],
  );
  const outputs = read.rows.map(({ txid, vout, amount, holder }) => ({ txid, vout, amount, holder }));
  const total = Number(read.rows[0]?.total ?? 0);
  if (total <= outputs.length) return { outputs, unread: '0', unreadOutputs: 0 };
  const unread = await db.query<{ amount: string }>(
    `with ${candidates}, numbered as (select amount, row_number() over (${ORDER}) as position from candidate)
     select coalesce(sum(amount), 0)::text as amount from numbered where position > $3`,
    [network, scale, limit],
  );
  return { outputs, unread: unread.rows[0]!.amount, unreadOutputs: total - outputs.length };
}
