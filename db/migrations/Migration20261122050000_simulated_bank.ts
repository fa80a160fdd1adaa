import { Migration } from '@mikro-orm/migrations';

/**
 * The simulated bank's state (activities/adapters/bank/simulated-bank.adapter.ts): one row per
 * submitted payment, so any number of workers on any number of machines see the same bank, as
 * they would a real one. The bank decides at submission, as a real one does: when the payment
 * is answered (by the database's clock, the one clock the workers share) and what the answer is,
 * so every worker that asks later reads the same answer. It is not our ledger: nothing
 * references it, and a real bank adapter does not use it.
 */
export class Migration20261122050000_simulated_bank extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table simulated_bank_payment (
  transfer_id text primary key check (transfer_id ~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$'),
  message_id text not null check (length(message_id) between 1 and 35),
  amount numeric(38, 2) not null check (amount > 0),
  creditor_iban text not null check (length(creditor_iban) between 15 and 34),
  pain001 text not null check (length(pain001) <= 100000),
  submitted_at timestamptz not null default clock_timestamp(),
  answer_at timestamptz not null,
  outcome text not null check (outcome in ('SETTLED', 'REJECTED')),
  rejection_reason text check ((outcome = 'REJECTED') = (rejection_reason is not null) and length(rejection_reason) <= 500)
);`);
  }
}
