import { Migration } from '@mikro-orm/migrations';

/**
 * What a leaked key can do, bounded per partner by operators (`ops partner set-policy`): whether
 * withdrawals must go to an ACTIVE entry of the partner's withdrawal-address book, how long a new
 * entry waits before it is ACTIVE (null: the deployment's WITHDRAWAL_ADDRESS_COOLING_OFF_MINUTES),
 * and a rolling 24-hour limit in EUR over crypto withdrawals and SEPA transfers (null: none).
 * No row: the defaults. Reservations lock the row to apply the limit, so it is a table of its own
 * and not columns of `partner`, which other transactions read and lock.
 */
export class Migration20261125090000_partner_policy extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table partner_policy (
  partner_id uuid primary key references partner(id),
  allowlist_required boolean not null default false,
  cooling_off_minutes integer check (cooling_off_minutes between 0 and 10080),
  daily_limit_eur numeric(38,2) check (daily_limit_eur >= 0),
  updated_at timestamptz not null default now()
);
`);
  }
}
