import { Migration } from '@mikro-orm/migrations';

/**
 * Sweeps of credited deposits on the UTXO networks: one transaction spends many deposit outputs (each signed with its
 * deposit address's key) to one fresh address of the hot wallet. Its bytes are stored with the deposits it takes, in one
 * transaction, before it is sent: a retry sends the same bytes, and no deposit is in two sweeps. What it paid the miners is
 * posted as a NETWORK_FEE transfer (fee_transfer_id) in the transaction that marks it SWEPT.
 */
export class Migration20261206000000_utxo_sweep extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table utxo_sweep (
  id uuid primary key,
  network text not null references utxo_wallet(network),
  txid text not null unique check (txid ~ '^[0-9a-f]{64}$'),
  raw_transaction text not null check (raw_transaction ~ '^([0-9a-f]{2})+$'),
  inputs integer not null check (inputs > 0),
  -- The deposits' outputs it spends, and what it pays the hot wallet; the difference is its fee. In base units.
  amount_base_units numeric(30, 0) not null check (amount_base_units > 0),
  sent_base_units numeric(30, 0) not null check (sent_base_units > 0 and sent_base_units < amount_base_units),
  status text not null check (status in ('IN_FLIGHT', 'SWEPT', 'FAILED')),
  -- INPUTS_SPENT: a deposit's output was spent by a transaction that is not this one (its key was used elsewhere).
  failure_reason text check (failure_reason in ('INPUTS_SPENT')),
  fee_transfer_id uuid unique references ledger_transfer(id) deferrable initially deferred,
  created_at timestamptz not null,
  finished_at timestamptz,
  check ((status = 'FAILED') = (failure_reason is not null)),
  check ((status = 'IN_FLIGHT') = (finished_at is null)),
  check ((status = 'SWEPT') = (fee_transfer_id is not null))
);
-- One sweep in flight per network: the next one takes what the last left.
create unique index utxo_sweep_in_flight_idx on utxo_sweep (network) where status = 'IN_FLIGHT';
create index utxo_sweep_created_idx on utxo_sweep (created_at desc, id desc);

alter table crypto_deposit add column utxo_sweep_id uuid references utxo_sweep(id) deferrable initially deferred;
alter table crypto_deposit add constraint crypto_deposit_utxo_swept_when_credited check (utxo_sweep_id is null or stage = 'CREDITED');
create index crypto_deposit_utxo_sweep_idx on crypto_deposit (utxo_sweep_id) where utxo_sweep_id is not null;
-- What each round of a UTXO sweeper reads: credited deposits no sweep took, largest first.
create index crypto_deposit_utxo_unswept_idx on crypto_deposit (network, amount desc)
  where stage = 'CREDITED' and sweep_id is null and utxo_sweep_id is null;
`);
  }
}
