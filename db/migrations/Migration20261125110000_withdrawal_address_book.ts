import { Migration } from '@mikro-orm/migrations';

/**
 * The partner's withdrawal-address book (docs/partners.md, "Withdrawal address book"):
 * - `withdrawal_address`: one row per entry, kept after deletion (`deleted_at`) for the record.
 *   `address` is stored as the partner sent it; `address_key` is the form two spellings of one
 *   address share (core/withdrawal-address-book.ts), which withdrawals are matched by. An entry
 *   is usable from `active_from` (its creation plus the partner's cooling-off). One live entry
 *   per (partner, currency, network, key); the partial unique index also serves the allowlist's
 *   lookup. Once written, an entry only gets its `deleted_at`, once (SQLSTATE PP030 otherwise),
 *   and payments_app may not delete rows, so a deletion or an earlier `active_from` cannot be
 *   forged by rewriting one.
 * - Webhooks: a trigger writes `withdrawal_address.created` and `withdrawal_address.deleted` into
 *   the outbox in the transaction of the change, like the operations' events; the entry is the
 *   event's subject (`operation_type` 'withdrawal-address', `operation_id` the entry's id), so its
 *   two events are numbered 1, 2 and delivered in that order.
 * - apply_payments_app_privileges() is replaced with the whole list, as it says to, adding
 *   `withdrawal_address` (no delete).
 */
export class Migration20261125110000_withdrawal_address_book extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table withdrawal_address (
  id uuid primary key,
  partner_id uuid not null references partner(id) deferrable initially deferred,
  currency text not null check (currency in ('btc', 'doge', 'eth', 'ltc', 'pol', 'usdc')),
  network text not null check (network in ('bitcoin', 'dogecoin', 'ethereum', 'litecoin', 'polygon')),
  address text not null check (length(address) between 1 and 128),
  address_key text not null check (length(address_key) between 1 and 128),
  label text not null check (length(label) between 1 and 100),
  active_from timestamptz not null,
  created_at timestamptz not null,
  deleted_at timestamptz,
  check (active_from >= created_at),
  check (deleted_at is null or deleted_at >= created_at)
);
create unique index withdrawal_address_live_key_idx on withdrawal_address (partner_id, currency, network, address_key)
  where deleted_at is null;
-- The book as the partner reads it, newest first, and the count of its live entries.
create index withdrawal_address_partner_idx on withdrawal_address (partner_id, created_at desc, id desc) where deleted_at is null;

create function withdrawal_address_only_deleted() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' or old.deleted_at is not null or new.deleted_at is null
     or (new.id, new.partner_id, new.currency, new.network, new.address, new.address_key, new.label, new.active_from, new.created_at)
        is distinct from
        (old.id, old.partner_id, old.currency, old.network, old.address, old.address_key, old.label, old.active_from, old.created_at) then
    raise exception 'withdrawal_address: an entry is only ever deleted, once (% refused)', tg_op using errcode = 'PP030';
  end if;
  return new;
end $$;
create trigger withdrawal_address_only_deleted before update or delete on withdrawal_address
  for each row execute function withdrawal_address_only_deleted();

alter table webhook_event
  drop constraint webhook_event_operation_type_check,
  add constraint webhook_event_operation_type_check
    check (operation_type in ('crypto-withdrawal', 'sepa-transfer', 'exchange', 'withdrawal-address')),
  drop constraint webhook_event_type_check,
  add constraint webhook_event_type_check
    check (type in ('crypto_withdrawal.status_changed', 'sepa_transfer.status_changed', 'exchange.status_changed',
                    'withdrawal_address.created', 'withdrawal_address.deleted'));

create function webhook_event_on_withdrawal_address_change() returns trigger language plpgsql as $$
declare
  v_event_type text := case tg_op when 'INSERT' then 'withdrawal_address.created' else 'withdrawal_address.deleted' end;
  v_event_id text := 'evt_' || replace(gen_random_uuid()::text, '-', '');
  v_sequence integer;
begin
  -- Partners without an endpoint cost this one primary-key lookup.
  perform 1 from webhook_endpoint where partner_id = new.partner_id;
  if not found then
    return null;
  end if;
  -- The insert, or the deletion that holds the row's lock: one numbering at a time.
  select coalesce(max(sequence), 0) + 1 into v_sequence from webhook_event where operation_id = new.id;
  insert into webhook_event (id, partner_id, operation_type, operation_id, sequence, type, payload, created_at, next_attempt_at)
  values (v_event_id, new.partner_id, 'withdrawal-address', new.id, v_sequence, v_event_type,
          jsonb_build_object(
            'id', v_event_id,
            'type', v_event_type,
            'timestamp', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
            'data', jsonb_build_object(
              'id', new.id,
              'currency', new.currency,
              'network', new.network,
              'address', new.address,
              'label', new.label,
              -- As the API shows it at that moment: ACTIVE at once only without a cooling-off.
              'status', case when tg_op = 'UPDATE' then 'DELETED' when new.active_from <= new.created_at then 'ACTIVE' else 'PENDING' end,
              'activeFrom', to_char(new.active_from at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
              'createdAt', to_char(new.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))),
          now(), now());
  return null;
end $$;
create trigger withdrawal_address_webhook_insert after insert on withdrawal_address
  for each row execute function webhook_event_on_withdrawal_address_change();
create trigger withdrawal_address_webhook_delete after update of deleted_at on withdrawal_address
  for each row when (old.deleted_at is null and new.deleted_at is not null)
  execute function webhook_event_on_withdrawal_address_change();

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
      ('withdrawal_address', 'delete')
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
