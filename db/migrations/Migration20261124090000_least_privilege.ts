import { Migration } from '@mikro-orm/migrations';

/**
 * Least privilege: the service (API, worker, operator CLI) connects as `payments_app`, which may
 * read and write rows and nothing else; `payments_migrator` owns the schema and runs these
 * migrations (`npm run migrate`, which creates both roles: db/database-roles.ts).
 *
 * - `apply_payments_app_privileges()` (re)grants what payments_app may do, for every table that
 *   exists when it runs: DML on every table, then the restrictions below by table name, each
 *   skipped while its table does not exist. `npm run migrate` calls it after every run of
 *   migrations (db/orm.ts), so a table a later migration creates is covered without that
 *   migration doing anything; a later migration that needs another restriction adds it by
 *   replacing this function (`create or replace`), with the whole list.
 *   - never: DDL (not the owner, no CREATE on the schema), TRUNCATE, REFERENCES, TRIGGER, and so
 *     no way to disable a trigger; nothing but SELECT on the migrations' own bookkeeping;
 *   - history, written once: no UPDATE or DELETE on ledger_posting, deposit, operator_action,
 *     operator_action_use, reconciliation_report, webhook_delivery_attempt;
 *   - rows that change state but never disappear: no DELETE on the other tables of money and
 *     partners (ledger_transfer, account, the operations, accepted and refused operations, manual
 *     credits, the chain's and the bank's records, …). DELETE stays where rows are meant to go:
 *     idempotency_record (a claim given back), webhook_endpoint (removed), and tables not named.
 *   Default privileges give a table the migrator creates DML at once; the function narrows it.
 * - A closed ledger transfer (POSTED or VOIDED) is final for every role, the owner included: a
 *   trigger refuses to change or delete it. ledger_complete only ever updates PENDING rows.
 */
export class Migration20261124090000_least_privilege extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create function ledger_transfer_closed_is_final() returns trigger language plpgsql as $$
begin
  raise exception 'invariant violated: ledger transfer % is %, and a closed transfer is never changed or deleted', old.id, old.state
    using errcode = 'PP009';
end $$;
create trigger ledger_transfer_closed_is_final before update or delete on ledger_transfer
  for each row when (old.state <> 'PENDING')
  execute function ledger_transfer_closed_is_final();

create function apply_payments_app_privileges() returns void language plpgsql as $$
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
      ('accepted_operation', 'delete'),
      ('refused_operation', 'delete'),
      ('manual_credit', 'delete'),
      ('webhook_event', 'delete'),
      ('simulated_bank_payment', 'delete'),
      ('evm_wallet_nonce', 'delete'),
      ('evm_transaction', 'delete'),
      ('evm_transaction_attempt', 'delete')
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
