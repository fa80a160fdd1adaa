import { Migration } from '@mikro-orm/migrations';

/**
 * The chain each EVM network is on (activities/adapters/chain/evm/evm-chain-identity.ts): its chain
 * id and genesis hash, recorded at the first use of the network by the withdrawals or the deposit
 * watcher, and checked before every broadcast, confirmation and batch of deposits. A node on
 * another chain (a development chain that was reset, a URL that points elsewhere) is refused,
 * saying why, until it is the recorded chain again or an operator adopts the new one
 * (`npm run ops -- chain adopt`: `adopted_at`, `adopted_by`; the old identity is in the audit row).
 * Not seeded from evm_deposit_cursor: the chains read before this migration were Hardhat's
 * in-memory ones, a new chain at every `npm start`, gone. Written with plain SQL
 * (db/queries/evm-chain-identity.queries.ts); never deleted.
 */
export class Migration20261127020000_evm_chain_identity extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table evm_chain_identity (
  network text primary key check (network in ('ethereum', 'polygon')),
  -- A new one per identity (first use, each adoption): what the operators' audit trail names.
  id uuid not null unique,
  chain_id bigint not null check (chain_id > 0),
  genesis_hash text not null check (genesis_hash ~ '^0x[0-9a-f]{64}$'),
  recorded_at timestamptz not null,
  adopted_at timestamptz,
  adopted_by text check (length(adopted_by) between 1 and 200),
  check ((adopted_at is null) = (adopted_by is null))
);

-- Migration20261124090000_least_privilege: the whole list again, with evm_chain_identity (never deleted).
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
      ('evm_sweep', 'delete'),
      ('evm_chain_identity', 'delete')
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
