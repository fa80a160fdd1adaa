import { Migration } from '@mikro-orm/migrations';

/**
 * What the house pays the network for a withdrawal (the miner's fee, the gas), in the network's coin: read when the chain
 * answers (confirmed, or failed on chain) into crypto_withdrawal.network_fee_paid, then posted, from the database alone, in
 * the transaction that settles or rejects the withdrawal: a NETWORK_FEE transfer FEE_INCOME → NETWORK_FEES under a derived
 * id, with its record here. Then the coins that left custody are the ledger's too: withdrawals' amounts in
 * CRYPTO_WITHDRAWALS, fees in NETWORK_FEES.
 */
export class Migration20261205000000_network_fee_expense extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table ledger_transfer drop constraint ledger_transfer_kind_check;
alter table ledger_transfer add constraint ledger_transfer_kind_check check (kind in ('DEPOSIT', 'EXCHANGE', 'CRYPTO_WITHDRAWAL',
  'SEPA_TRANSFER', 'CRYPTO_WITHDRAWAL_FEE', 'SEPA_UNMATCHED', 'SEPA_RETURN', 'NETWORK_FEE'));

-- What its transaction on chain paid the network, in the network's coin, as the node said when it answered.
alter table crypto_withdrawal add column network_fee_paid numeric(38,18) check (network_fee_paid >= 0);

-- The network fee a withdrawal's transaction paid (its NETWORK_FEE transfer's id), at most one each.
create table crypto_withdrawal_network_fee (
  id uuid primary key references ledger_transfer(id) deferrable initially deferred,
  withdrawal_id uuid not null unique references crypto_withdrawal(id) deferrable initially deferred,
  network text not null,
  -- The network's coin, whatever the withdrawal's currency (a token's transfer pays gas in the coin).
  currency text not null,
  amount numeric(38,18) not null check (amount > 0),
  transaction_hash text not null check (length(transaction_hash) between 64 and 66),
  created_at timestamptz not null
);
create index crypto_withdrawal_network_fee_created_idx on crypto_withdrawal_network_fee (created_at);
`);
    this.initialRows();
  }

  /** Last, as in the baseline: rows inserted under deferred foreign keys hold their tables until commit. */
  private initialRows(): void {
    this.addSql(`
-- The networks' coins: what fees are paid in.
insert into account (id, kind, system_code, currency)
select gen_random_uuid(), 'SYSTEM', 'NETWORK_FEES', currency
  from unnest(array['btc', 'doge', 'eth', 'ltc', 'pol']) as currency;
`);
  }
}
