import { Migration } from '@mikro-orm/migrations';

/**
 * Incoming SEPA credits (docs/operators.md, "Incoming SEPA credits"):
 * - `incoming_sepa_credit`: every booked credit the bank notified (camt.054), once: the bank's
 *   entry reference is unique, so a notification delivered twice is recorded, and credited, once.
 *   CREDITED when it matched a partner's ACTIVE EUR account (its `deposit` posted in the same
 *   transaction); else UNMATCHED, the money in the SEPA_SUSPENSE system account until an operator
 *   assigns it (ASSIGNED, a `deposit` from suspense) or returns it to the debtor (RETURNING, then
 *   RETURNED when the bank settles the return, suspense → SEPA_CLEARING; a rejected return is
 *   UNMATCHED again). A trigger keeps what was received unchanged, allows only those moves, and
 *   refuses deletion (SQLSTATE PP022).
 * - the SEPA_SUSPENSE system account (eur), and the ledger kinds SEPA_UNMATCHED (EXTERNAL_DEPOSITS
 *   → SEPA_SUSPENSE) and SEPA_RETURN (SEPA_SUSPENSE → SEPA_CLEARING).
 * - `bank_notification_cursor`: where the ingest reads the bank's notifications from next.
 * - `simulated_bank_notification`: the simulated bank's side (like simulated_bank_payment): the
 *   camt.054 documents it delivers, in the order `npm run ops -- bank receive` recorded them.
 * - payments_app: the function of Migration20261124110000_write_once_operations, replaced with
 *   the whole list, as it says to.
 */
export class Migration20261126090000_incoming_sepa extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
insert into account (id, kind, system_code, currency) values (gen_random_uuid(), 'SYSTEM', 'SEPA_SUSPENSE', 'eur');

alter table ledger_transfer drop constraint ledger_transfer_kind_check;
alter table ledger_transfer add constraint ledger_transfer_kind_check
  check (kind in ('DEPOSIT', 'EXCHANGE', 'CRYPTO_WITHDRAWAL', 'SEPA_TRANSFER', 'CRYPTO_WITHDRAWAL_FEE', 'SEPA_UNMATCHED', 'SEPA_RETURN'));

create table incoming_sepa_credit (
  id uuid primary key,
  entry_ref text not null unique check (length(entry_ref) between 1 and 35),
  account_iban text not null check (account_iban ~ '^[A-Z]{2}[0-9]{2}[A-Z0-9]{1,30}$'),
  amount numeric(38,2) not null check (amount > 0),
  booking_date date,
  value_date date,
  debtor_name text not null check (length(debtor_name) between 1 and 140),
  debtor_iban text not null check (debtor_iban ~ '^[A-Z]{2}[0-9]{2}[A-Z0-9]{1,30}$'),
  remittance text check (length(remittance) between 1 and 140),
  message_id text not null check (length(message_id) between 1 and 35),
  received_at timestamptz not null,
  status text not null check (status in ('CREDITED', 'UNMATCHED', 'ASSIGNED', 'RETURNING', 'RETURNED')),
  unmatched_reason text check (unmatched_reason in ('NO_ACCOUNT', 'ACCOUNT_NOT_ACTIVE')),
  -- Who was credited, and the deposit that credited them (CREDITED, ASSIGNED).
  partner_id uuid references partner(id) deferrable initially deferred,
  deposit_id uuid unique references deposit(id) deferrable initially deferred,
  -- The posting into suspense of a credit that did not match (every status but CREDITED).
  suspense_transfer_id uuid unique references ledger_transfer(id) deferrable initially deferred,
  -- The return: the payment's id at the bank (and the id of its ledger transfer once settled).
  return_id uuid unique,
  return_bank_reference text check (length(return_bank_reference) between 1 and 200),
  return_requested_at timestamptz,
  -- Why the bank rejected the last return (the credit is UNMATCHED again).
  return_rejection text check (length(return_rejection) between 1 and 500),
  resolved_at timestamptz,
  check ((status in ('CREDITED', 'ASSIGNED')) = (partner_id is not null and deposit_id is not null)),
  check ((status = 'CREDITED') = (suspense_transfer_id is null and unmatched_reason is null)),
  check ((status in ('RETURNING', 'RETURNED')) = (return_id is not null and return_requested_at is not null)),
  check (return_bank_reference is null or return_id is not null),
  check ((status in ('CREDITED', 'ASSIGNED', 'RETURNED')) = (resolved_at is not null))
);
create index incoming_sepa_credit_open_idx on incoming_sepa_credit (received_at, id) where status in ('UNMATCHED', 'RETURNING');

create function incoming_sepa_credit_guard() returns trigger language plpgsql as $$
begin
  if tg_op <> 'UPDATE' then
    raise exception 'incoming_sepa_credit: % refused (a received credit is resolved, never removed)', tg_op using errcode = 'PP022';
  end if;
  if (new.id, new.entry_ref, new.account_iban, new.amount, new.booking_date, new.value_date, new.debtor_name, new.debtor_iban,
      new.remittance, new.message_id, new.received_at, new.unmatched_reason, new.suspense_transfer_id)
     is distinct from
     (old.id, old.entry_ref, old.account_iban, old.amount, old.booking_date, old.value_date, old.debtor_name, old.debtor_iban,
      old.remittance, old.message_id, old.received_at, old.unmatched_reason, old.suspense_transfer_id) then
    raise exception 'incoming credit %: what was received cannot change', old.entry_ref using errcode = 'PP022';
  end if;
  if not ((old.status = 'UNMATCHED' and new.status in ('ASSIGNED', 'RETURNING'))
       or (old.status = 'RETURNING' and new.status in ('RETURNING', 'RETURNED', 'UNMATCHED'))) then
    raise exception 'incoming credit %: % cannot become %', old.entry_ref, old.status, new.status using errcode = 'PP022';
  end if;
  if old.status = 'RETURNING' and new.status = 'RETURNING' and new.return_id is distinct from old.return_id then
    raise exception 'incoming credit %: a return under way keeps its payment id', old.entry_ref using errcode = 'PP022';
  end if;
  return new;
end $$;
create trigger incoming_sepa_credit_guard before update or delete on incoming_sepa_credit
  for each row execute function incoming_sepa_credit_guard();
create trigger incoming_sepa_credit_no_truncate before truncate on incoming_sepa_credit
  for each statement execute function incoming_sepa_credit_guard();
alter table incoming_sepa_credit enable always trigger incoming_sepa_credit_guard;
alter table incoming_sepa_credit enable always trigger incoming_sepa_credit_no_truncate;

create table bank_notification_cursor (
  source text primary key check (source ~ '^[a-z][a-z0-9-]{0,62}$'),
  position text check (length(position) between 1 and 1000),
  updated_at timestamptz not null
);

create table simulated_bank_notification (
  id uuid primary key,
  -- Inserts are serialised (an advisory lock, db/queries/simulated-bank.queries.ts), so sequences
  -- commit in order and a reader's cursor never passes one still to commit.
  sequence bigint generated always as identity unique,
  entry_ref text not null check (length(entry_ref) between 1 and 35),
  account_iban text not null check (length(account_iban) between 15 and 34),
  amount numeric(38,2) not null check (amount > 0),
  debtor_name text not null check (length(debtor_name) between 1 and 140),
  debtor_iban text not null check (length(debtor_iban) between 15 and 34),
  remittance text check (length(remittance) between 1 and 140),
  camt054 text not null check (length(camt054) <= 2000000),
  received_at timestamptz not null default clock_timestamp()
);
create index simulated_bank_notification_entry_ref_idx on simulated_bank_notification (entry_ref);

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
      ('partner_policy', 'delete')
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
