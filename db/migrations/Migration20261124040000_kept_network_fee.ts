import { Migration } from '@mikro-orm/migrations';

/**
 * A crypto withdrawal whose transaction failed on chain (an EVM revert) paid the network its fee:
 * the amount goes back to the partner, the fee does not.
 * - `crypto_withdrawal.failed_on_chain_at`: when the chain answered that the withdrawal's
 *   transaction failed; its rejection then keeps the fee.
 * - `crypto_withdrawal_kept_fee`: one row per fee kept, the business record of a transfer of kind
 *   `CRYPTO_WITHDRAWAL_FEE` (partner → FEE_INCOME, posted at once) under the same id, in the
 *   transaction that voids the withdrawal's hold. At most one per withdrawal. It is a line of the
 *   partner's history, hence the history's index.
 */
export class Migration20261124040000_kept_network_fee extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table ledger_transfer drop constraint ledger_transfer_kind_check;
alter table ledger_transfer add constraint ledger_transfer_kind_check
  check (kind in ('DEPOSIT', 'EXCHANGE', 'CRYPTO_WITHDRAWAL', 'SEPA_TRANSFER', 'CRYPTO_WITHDRAWAL_FEE'));

alter table crypto_withdrawal add column failed_on_chain_at timestamptz;

create table crypto_withdrawal_kept_fee (
  id uuid primary key references ledger_transfer(id) deferrable initially deferred,
  withdrawal_id uuid not null unique references crypto_withdrawal(id) deferrable initially deferred,
  partner_id uuid not null references partner(id) deferrable initially deferred,
  currency text not null,
  amount numeric(38,18) not null check (amount > 0),
  created_at timestamptz not null default now()
);
create index crypto_withdrawal_kept_fee_history_idx on crypto_withdrawal_kept_fee (partner_id, created_at desc, id desc);
`);
  }
}
