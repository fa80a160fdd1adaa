import { Migration } from '@mikro-orm/migrations';

/**
 * The operator CLI's own way to the ledger (its role, payments_ops, is made by `npm run migrate` and narrowed by
 * db/privileges.sql): it may not run public's ledger functions nor write a ledger table. Its search_path finds the
 * operator schema's functions first, under the same names, which take only what an operator may do (a deposit or a
 * network fee posted at once; a withdrawal's or SEPA transfer's hold posted or voided) and run the ledger's own. At
 * commit, every ledger change of that role needs, in its transaction, the audit row of a command that may make it; a
 * credit posted on a second operator's approval needs that approval recorded; so does any other write of that role. Audit rows cannot be removed, so no
 * operator moves money unrecorded. An account the operator opens starts empty (its cached balances are the ledger's).
 */
export class Migration20261210000000_operator_role extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
-- On a new database every migration runs in one transaction: checks deferred by those before are run now, so the tables
-- below may be altered (deferred again at the end).
set constraints all immediate;

-- Which transaction wrote which audit row (pg_current_xact_id() is the top-level transaction's, savepoints included).
create table operator_transaction (
  xact_id xid8 not null,
  -- No foreign key: operator_action's TRUNCATE is refused by its own trigger, not by a reference to it.
  action_id uuid not null,
  primary key (xact_id, action_id)
);

create function operator_transaction_record() returns trigger language plpgsql security definer set search_path = public, pg_temp as $$
begin
  insert into operator_transaction (xact_id, action_id) values (pg_current_xact_id(), new.id) on conflict do nothing;
  return null;
end $$;
create trigger operator_action_transaction after insert on operator_action
  for each row execute function operator_transaction_record();
alter table operator_action enable always trigger operator_action_transaction;

create function operator_ledger_change_audited() returns trigger language plpgsql security definer set search_path = public, pg_temp as $$
declare
  v_may text[];
begin
  v_may := case
    when tg_op = 'UPDATE' then array['release', 'settle']
    when new.kind = 'NETWORK_FEE' then array['release', 'settle']
    else array['deposit', 'bank-assign', 'deposit-approve']
  end;
  if not exists (
    select 1
      from operator_transaction t
      join operator_action a on a.id = t.action_id
     where t.xact_id = pg_current_xact_id()
       and a.action = any (v_may)
       -- The row names this transfer (a withdrawal's fee is named by the withdrawal it settles).
       and (a.subject_id = new.id or a.operation_id = new.id or a.details->>'transactionId' = new.id::text
            or (new.kind = 'NETWORK_FEE' and a.operation_id is not null))
       -- Approved by a second operator: the approval is recorded (manual_credit_guard: not by its requester).
       and (a.action <> 'deposit-approve'
            or exists (select 1 from manual_credit m where m.transaction_id = new.id and m.status = 'APPROVED'))
  ) then
    raise exception 'ledger transfer % (%): an operator changes the ledger only with the audit row of a command that may (%) in the same transaction',
      new.id, new.kind, array_to_string(v_may, ', ') using errcode = 'PP040';
  end if;
  return null;
end $$;
create constraint trigger ledger_transfer_operator_audited after insert or update on ledger_transfer
  deferrable initially deferred
  for each row when (session_user = 'payments_ops') execute function operator_ledger_change_audited();
alter table ledger_transfer enable always trigger ledger_transfer_operator_audited;

-- Every write of that role, to any table (db/privileges.sql attaches this to each one it may write), needs an audit row
-- in its transaction: an operator changes nothing unrecorded.
create function operator_write_audited() returns trigger language plpgsql security definer set search_path = public, pg_temp as $$
begin
  if not exists (select 1 from operator_transaction where xact_id = pg_current_xact_id()) then
    raise exception '%: an operator changes nothing without the audit row of its command in the same transaction (npm run ops writes it)',
      tg_table_name using errcode = 'PP040';
  end if;
  return null;
end $$;

-- An account the operator opens (partner create) holds nothing yet: its cached balances move only with the ledger.
create function operator_account_opens_empty() returns trigger language plpgsql as $$
begin
  if new.posted_amount <> 0 or new.pending_out_amount <> 0 or new.pending_in_amount <> 0 then
    raise exception 'account %: an operator opens an account with no balance; money comes through the ledger', new.id using errcode = 'PP040';
  end if;
  return new;
end $$;
create trigger account_operator_opens_empty before insert on account
  for each row when (session_user = 'payments_ops') execute function operator_account_opens_empty();
alter table account enable always trigger account_operator_opens_empty;

-- A transfer's state, its row locked to the end of the transaction: a row lock needs UPDATE, which the operator's role
-- has not on the ledger (its resolve locks the hold it is about to complete).
create function ledger_transfer_lock(p_id uuid) returns text language sql security definer set search_path = public, pg_temp as $$
  select state from ledger_transfer where id = p_id for update
$$;

-- A manual credit is requested, never made approved: its approval is a later update, by another operator (manual_credit_guard).
create function manual_credit_starts_pending() returns trigger language plpgsql as $$
begin
  if new.status <> 'PENDING' or num_nonnulls(new.approved_by, new.approved_os_user, new.approved_at, new.transaction_id) > 0 then
    raise exception 'manual credit %: it is requested PENDING and approved later', new.id using errcode = 'PP021';
  end if;
  return new;
end $$;
create trigger manual_credit_starts_pending before insert on manual_credit
  for each row execute function manual_credit_starts_pending();
alter table manual_credit enable always trigger manual_credit_starts_pending;

create schema operator;

create function operator.ledger_open(p_id uuid, p_kind text, p_state text, p_postings jsonb, p_now timestamptz)
returns text language plpgsql security definer set search_path = public, pg_temp as $$
begin
  if p_state <> 'POSTED' or p_kind not in ('DEPOSIT', 'NETWORK_FEE') then
    raise exception 'an operator posts a deposit or a network fee, final at once; not a % %', p_state, p_kind using errcode = 'PP040';
  end if;
  -- A deposit: money from outside (or suspense) to one partner account; a network fee: between house accounts only.
  if p_kind = 'DEPOSIT' and not (
       jsonb_array_length(p_postings) = 2
       and exists (select 1 from jsonb_array_elements(p_postings) e
                    where e->>'s' in ('EXTERNAL_DEPOSITS', 'SEPA_SUSPENSE') and (e->>'m')::numeric < 0)
       and exists (select 1 from jsonb_array_elements(p_postings) e join account x on x.id = (e->>'a')::uuid
                    where x.kind = 'PARTNER' and (e->>'m')::numeric > 0))
     or p_kind = 'NETWORK_FEE' and exists (select 1 from jsonb_array_elements(p_postings) e
                                           where e->>'s' not in ('FEE_INCOME', 'NETWORK_FEES') or e->>'s' is null) then
    raise exception 'ledger transfer %: an operator''s % moves money only as its commands do', p_id, p_kind using errcode = 'PP040';
  end if;
  return public.ledger_open(p_id, p_kind, p_state, p_postings, p_now);
end $$;

create function operator.ledger_complete(p_id uuid, p_target text, p_now timestamptz)
returns text language plpgsql security definer set search_path = public, pg_temp as $$
begin
  if not exists (select 1 from ledger_transfer where id = p_id and kind in ('CRYPTO_WITHDRAWAL', 'SEPA_TRANSFER')) then
    raise exception 'ledger transfer %: an operator completes only a withdrawal''s or a SEPA transfer''s hold', p_id using errcode = 'PP040';
  end if;
  return public.ledger_complete(p_id, p_target, p_now);
end $$;

revoke all on schema operator from public;
revoke execute on all functions in schema operator from public;

set constraints all deferred;
`);
  }
}
