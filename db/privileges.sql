-- What payments_app, the role of the API, the worker and the sweeper, may do: rows, and
-- nothing else (docs/production.md, "Database roles"). payments_migrator owns the schema.
-- `npm run migrate` runs this file after every run of migrations (db/orm.ts), as payments_migrator,
-- so every table that exists then is covered. Idempotent.
--
-- apply_payments_app_privileges() grants DML on every table, then takes back by table name:
-- - never: DDL (not the owner, no CREATE on the schema), TRUNCATE, REFERENCES, TRIGGER, and so no
--   way to disable a trigger; nothing but SELECT on the migrations' own bookkeeping; views are read;
-- - history, written once: no UPDATE or DELETE (the postings, deposits, audit trail, reports,
--   delivery attempts, accepted and refused operations, the simulated bank's notifications);
-- - rows that change state but never disappear: no DELETE on the other tables of money and
--   partners. DELETE stays where rows are meant to go: idempotency_record (a claim given back),
--   webhook_endpoint (removed), and tables not named.
-- A new table gets DML at once (the default privileges at the end); one that needs a restriction
-- is named in the list. A function, so that the owner can re-apply the whole in one call.

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
      ('bank_document_exception', 'update, delete'),
      ('operator_transaction', 'insert, update, delete'),
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
      ('evm_chain_identity', 'delete'),
      ('utxo_wallet', 'delete'),
      ('utxo_wallet_script', 'update, delete'),
      ('utxo_coin', 'delete'),
      ('utxo_transaction', 'delete'),
      ('utxo_transaction_attempt', 'delete'),
      ('crypto_withdrawal_network_fee', 'update, delete'),
      ('utxo_sweep', 'delete')
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

-- What payments_ops, the operator CLI's role (`npm run ops`), may do: read everything; write what an operator's commands
-- write (partners, keys, policies, users, webhooks, manual credits, incoming credits, resolutions, the audit trail) but
-- no ledger table, no account's cached balances or addresses, and none of what the API, the worker or the sweeper keep
-- (operations accepted, locks, exchanges, the chains' and the bank's records, reports); run no function of public's
-- (the ledger's included): its search_path finds the operator schema's first (the migration operator_role). A role
-- made only where `npm run migrate` was given DATABASE_OPS_URL; without it, nothing here is done.
create or replace function apply_payments_ops_privileges() returns void language plpgsql as $$
declare
  v_table text;
  v_function regprocedure;
begin
  if not exists (select 1 from pg_roles where rolname = 'payments_ops') then
    return;
  end if;
  grant usage on schema public to payments_ops;
  grant select, insert, update, delete on all tables in schema public to payments_ops;
  grant usage, select on all sequences in schema public to payments_ops;
  revoke truncate, references, trigger on all tables in schema public from payments_ops;
  -- What payments_app may not change, payments_ops may not either.
  for v_table in
    select c.relname from pg_class c
     where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p', 'v', 'm')
  loop
    if not has_table_privilege('payments_app', format('public.%I', v_table), 'UPDATE') then
      execute format('revoke update on public.%I from payments_ops', v_table);
    end if;
    if not has_table_privilege('payments_app', format('public.%I', v_table), 'DELETE') then
      execute format('revoke delete on public.%I from payments_ops', v_table);
    end if;
    if not has_table_privilege('payments_app', format('public.%I', v_table), 'INSERT') then
      execute format('revoke insert on public.%I from payments_ops', v_table);
    end if;
  end loop;
  for v_table in
    select * from (values
      ('ledger_transfer'), ('ledger_posting'), ('accepted_operation'), ('refused_operation'), ('idempotency_record'),
      ('rate_lock'), ('exchange'), ('reconciliation_report'), ('operator_action_use'), ('operator_transaction'),
      ('webhook_delivery_attempt'), ('evm_wallet_nonce'), ('evm_transaction'), ('evm_transaction_attempt'), ('evm_sweep'),
      ('evm_deposit_cursor'), ('evm_scanned_block'), ('crypto_deposit'), ('utxo_wallet'), ('utxo_wallet_script'),
      ('utxo_coin'), ('utxo_transaction'), ('utxo_transaction_attempt'), ('utxo_scanned_block'), ('utxo_sweep'),
      ('bank_notification_cursor'), ('bank_document_exception'), ('network_config'), ('withdrawal_address'),
      ('crypto_withdrawal_kept_fee'), ('crypto_withdrawal_network_fee'), ('incoming_sepa_credit'),
      ('crypto_withdrawal'), ('sepa_transfer'), ('partner')
    ) as never_written(table_name)
  loop
    if to_regclass('public.' || v_table) is not null then
      execute format('revoke insert, update, delete on public.%I from payments_ops', v_table);
    end if;
  end loop;
  -- Whatever it may write, it writes with its command's audit row (operator_write_audited, deferred to the commit).
  for v_table in
    select c.relname from pg_class c
     where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p')
       and (has_table_privilege('payments_ops', c.oid, 'INSERT') or has_table_privilege('payments_ops', c.oid, 'UPDATE')
            or has_table_privilege('payments_ops', c.oid, 'DELETE'))
       and not exists (select 1 from pg_trigger t where t.tgrelid = c.oid and t.tgname = 'operator_write_audited')
  loop
    if to_regprocedure('public.operator_write_audited()') is not null then
      execute format(
        'create constraint trigger operator_write_audited after insert or update or delete on public.%I deferrable initially deferred '
        'for each row when (session_user = ''payments_ops'') execute function operator_write_audited()', v_table);
    end if;
  end loop;
  -- Of these, only the columns its commands change. An account's cached balances and deposit address are the ledger's and
  -- the derivation's: only its status. A partner is created, then changed only through its policy.
  revoke update on account from payments_ops;
  grant update (fiat_status) on account to payments_ops;
  grant insert on partner to payments_ops;
  -- A withdrawal or SEPA transfer is only closed (operation resolve): never its destination, amount, hand-off or rejection.
  grant update (status, stage, failure_reason, updated_at) on crypto_withdrawal, sepa_transfer to payments_ops;
  -- An incoming credit is assigned or returned (bank assign, bank return), never made up.
  grant update (status, partner_id, deposit_id, resolved_at, return_id, return_bank_reference, return_requested_at)
    on incoming_sepa_credit to payments_ops;
  -- Settling a withdrawal by hand records what its transaction paid the network, with its NETWORK_FEE transfer.
  grant insert on crypto_withdrawal_network_fee to payments_ops;
  -- chain adopt moves the hot wallet's next nonce forward to the adopted chain's count.
  grant update (next_nonce) on evm_wallet_nonce to payments_ops;
  -- No function of public's: the ledger's go through the operator schema's (PUBLIC's default EXECUTE taken back too).
  revoke execute on all functions in schema public from public, payments_ops;
  -- But these, which its commands call: a travel-rule completion's digest, a transfer's lock (neither moves money).
  for v_function in
    select p.oid::regprocedure from pg_proc p
     where p.pronamespace = 'public'::regnamespace and p.proname in ('travel_rule_completion_digest', 'ledger_transfer_lock')
  loop
    execute format('grant execute on function %s to payments_ops', v_function);
  end loop;
  if to_regnamespace('operator') is not null then
    grant usage on schema operator to payments_ops;
    grant execute on all functions in schema operator to payments_ops;
  end if;
  alter default privileges for role payments_migrator in schema public revoke execute on functions from public;
end $$;

revoke execute on function apply_payments_ops_privileges() from public, payments_app;
select apply_payments_ops_privileges();
