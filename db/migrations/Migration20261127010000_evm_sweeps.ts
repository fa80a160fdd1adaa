import { Migration } from '@mikro-orm/migrations';

/**
 * Sweeps (activities/evm-sweep.activities.ts): credited deposits moved from partners' deposit
 * addresses to the network's hot wallet. Partner balances never change; custody does.
 * - `evm_sweep`: one row per sweep of one (network, deposit address, currency): what it takes (the
 *   credited deposits' sum, in base units), from which address (and the partner's deposit index
 *   its key derives at), to which hot wallet, and where it is. Its own transaction is the
 *   `evm_transaction` under the sweep's id, signed by the deposit address's key; a token sweep's
 *   gas comes first from the hot wallet, as an `evm_transaction` of its own
 *   (`gas_top_up_transaction_id`). Both are stored before they are sent, as withdrawals are.
 *   IN_FLIGHT until its transaction has the network's confirmations: SWEPT, or FAILED with why.
 *   At most one sweep in flight per address (whatever the currency): one key signs one thing at a
 *   time, so a native sweep never spends the gas a token sweep was given.
 * - `crypto_deposit.sweep_id`: the sweep that took the deposit. Credited deposits without one are
 *   what the sweeper looks for (a partial index keeps that to the unswept few), and with the
 *   sweeps not yet SWEPT, the addresses custody reconciliation reads from the chain.
 */
export class Migration20261127010000_evm_sweeps extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table evm_sweep (
  id uuid primary key,
  network text not null check (network in ('ethereum', 'polygon')),
  currency text not null check (currency in ('eth', 'pol', 'usdc')),
  address text not null check (address ~ '^0x[0-9a-f]{40}$'),
  partner_id uuid not null references partner(id) deferrable initially deferred,
  deposit_index integer not null check (deposit_index between 0 and 2147483647),
  hot_wallet text not null check (hot_wallet ~ '^0x[0-9a-f]{40}$'),
  -- The credited deposits' sum in the currency's smallest unit: at most this leaves the address.
  amount_base_units numeric(78, 0) not null check (amount_base_units > 0),
  -- What the sweep's transaction moves (a native sweep: the amount, or what the address holds, minus its gas).
  sent_base_units numeric(78, 0) check (sent_base_units > 0),
  status text not null check (status in ('IN_FLIGHT', 'SWEPT', 'FAILED')),
  failure_reason text check (failure_reason in ('ADDRESS_NOT_DERIVED', 'NOTHING_AT_ADDRESS', 'REVERTED', 'NONCE_MISMATCH')),
  gas_top_up_transaction_id uuid unique,
  gas_top_up_base_units numeric(78, 0) check (gas_top_up_base_units > 0),
  -- The address can pay its transaction's gas (a token sweep's top-up confirmed, or not needed; a native sweep pays its own).
  gas_ready_at timestamptz,
  -- Set before the sweep's transaction is first sent: from then on it may be on chain.
  sent_at timestamptz,
  -- The attempt that landed, once final.
  transaction_hash text check (transaction_hash ~ '^0x[0-9a-f]{64}$'),
  created_at timestamptz not null,
  finished_at timestamptz,
  check ((status = 'FAILED') = (failure_reason is not null)),
  check ((status = 'IN_FLIGHT') = (finished_at is null)),
  check (status <> 'SWEPT' or (transaction_hash is not null and sent_base_units is not null)),
  check ((gas_top_up_transaction_id is null) = (gas_top_up_base_units is null))
);
-- One sweep in flight per address.
create unique index evm_sweep_in_flight_idx on evm_sweep (network, address) where status = 'IN_FLIGHT';
-- Custody reads the addresses of sweeps not SWEPT (in flight, or failed: their coins may still be there).
create index evm_sweep_not_swept_idx on evm_sweep (network) where status <> 'SWEPT';
-- The operators' list, newest first.
create index evm_sweep_created_idx on evm_sweep (created_at desc, id desc);

alter table crypto_deposit add column sweep_id uuid references evm_sweep(id) deferrable initially deferred;
alter table crypto_deposit add constraint crypto_deposit_swept_when_credited check (sweep_id is null or stage = 'CREDITED');
-- What the sweeper reads every few seconds: credited deposits no sweep took yet.
create index crypto_deposit_unswept_idx on crypto_deposit (network, credited_at) where stage = 'CREDITED' and sweep_id is null;
create index crypto_deposit_sweep_idx on crypto_deposit (sweep_id) where sweep_id is not null;

-- Migration20261124090000_least_privilege: the whole list again, with evm_sweep (never deleted: operators read what was swept).
create or replace function apply_payments_app_privileges() returns void language plpgsql as $$
declare
  v_restriction record;
  v_view regclass;
begin
  if not exists (select 1 from pg_roles where rolname = 'payments_app')
     or not exists (select 1 from pg_roles where rolname = 'payments_migrator') then
    raise exception 'the roles payments_app and payments_migrator must exist: npm run migrate with DATABASE_ADMIN_URL creates them (docs/production.md, "Database roles")';
  end if;
  grant usage on schema public to payments_app;
  grant select, insert, update, delete on all tables in schema public to payments_app;
  grant usage, select on all sequences in schema public to payments_app;
  revoke truncate, references, trigger on all tables in schema public from payments_app;
  -- Views are read.
  for v_view in select c.oid::regclass from pg_class c where c.relnamespace = 'public'::regnamespace and c.relkind in ('v', 'm') loop
    execute format('revoke insert, update, delete on %s from payments_app', v_view);
  end loop;
  if to_regclass('public.mikro_orm_migrations') is not null then
    revoke insert, update, delete on mikro_orm_migrations from payments_app;
  end if;
  if to_regclass('public.mikro_orm_migrations_id_seq') is not null then
    revoke all on sequence mikro_orm_migrations_id_seq from payments_app;
  end if;
  for v_restriction in
    select * from (values
      ('ledger_posting', 'update, delete'),
      ('deposit', 'update, delete'),
      ('operator_action', 'update, delete'),
      ('operator_action_use', 'update, delete'),
      ('reconciliation_report', 'update, delete'),
      ('webhook_delivery_attempt', 'update, delete'),
      ('accepted_operation', 'update, delete'),
      ('refused_operation', 'update, delete'),
      ('simulated_bank_notification', 'update, delete'),
      ('ledger_transfer', 'delete'),
      ('account', 'delete'),
      ('partner', 'delete'),
      ('api_key', 'delete'),
      ('partner_user', 'delete'),
      ('network_config', 'delete'),
      ('rate_lock', 'delete'),
      ('exchange', 'delete'),
      ('crypto_withdrawal', 'delete'),
      ('sepa_transfer', 'delete'),
      ('manual_credit', 'delete'),
      ('webhook_event', 'delete'),
      ('simulated_bank_payment', 'delete'),
      ('evm_wallet_nonce', 'delete'),
      ('evm_transaction', 'delete'),
      ('evm_transaction_attempt', 'delete'),
      ('incoming_sepa_credit', 'delete'),
      ('bank_notification_cursor', 'delete'),
      ('withdrawal_address', 'delete'),
      ('partner_policy', 'delete'),
      ('crypto_deposit', 'delete'),
      ('evm_deposit_cursor', 'delete'),
      ('evm_sweep', 'delete')
    ) as restriction(table_name, privileges)
  loop
    if to_regclass('public.' || v_restriction.table_name) is not null then
      execute format('revoke %s on %I from payments_app', v_restriction.privileges, v_restriction.table_name);
    end if;
  end loop;
  -- The functions a transaction of the service calls (the ledger's, and any later one).
  grant execute on all functions in schema public to payments_app;
  revoke execute on function apply_payments_app_privileges() from payments_app, public;
  alter default privileges for role payments_migrator in schema public grant select, insert, update, delete on tables to payments_app;
  alter default privileges for role payments_migrator in schema public grant usage, select on sequences to payments_app;
end $$;

select apply_payments_app_privileges();
`);
  }
}
