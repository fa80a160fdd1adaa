import { Migration } from '@mikro-orm/migrations';

/**
 * The operators' trail, which nobody can rewrite (db/services/operator-audit.service.ts):
 * - `operator_action` now records every state-changing `npm run ops` command, not only those on
 *   operations: the OS user beside the actor, a subject (`subject_type`, `subject_id`), the
 *   partner it concerns, and an optional reason. `operation_id` stays for actions on an
 *   operation (`ops operation show` lists them). Existing rows become subject 'operation' with
 *   their partner filled in; their OS user was never recorded and stays null.
 *   The action and subject type are checked for their shape here and listed in
 *   db/entities/operator-action.entity.ts, so a new command needs no migration.
 * - `operator_action_use`: an operator action consumed by the workflow it was meant for (a
 *   travel-rule completion), once; the primary key makes a second use impossible.
 * - Both are append-only for every role, the owner and superusers included: triggers refuse
 *   UPDATE, DELETE and TRUNCATE (SQLSTATE PP020), and fire even with
 *   `session_replication_role = replica`, which silences ordinary triggers.
 * - `manual_credit`: a deposit above MANUAL_CREDIT_APPROVAL_ABOVE_EUR waiting for a second
 *   operator. A trigger allows one change only, PENDING to APPROVED with who, when and the
 *   deposit it posted, never by its requester, and refuses deletion (SQLSTATE PP021).
 */
export class Migration20261124020000_operator_audit extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table operator_action
  add column os_user text check (length(os_user) between 1 and 200),
  add column subject_type text,
  add column subject_id uuid,
  add column partner_id uuid,
  alter column operation_id drop not null,
  alter column operation_type drop not null,
  alter column reason drop not null;

update operator_action a
   set subject_type = 'operation',
       subject_id = a.operation_id,
       partner_id = coalesce((select w.partner_id from crypto_withdrawal w where w.id = a.operation_id),
                             (select s.partner_id from sepa_transfer s where s.id = a.operation_id));

alter table operator_action
  alter column subject_type set not null,
  alter column subject_id set not null,
  drop constraint operator_action_action_check,
  add constraint operator_action_action_check check (action ~ '^[a-z][a-z0-9-]{0,62}$'),
  add constraint operator_action_subject_type_check check (subject_type ~ '^[a-z][a-z0-9-]{0,62}$'),
  add constraint operator_action_operation_check check ((operation_id is null) = (operation_type is null)),
  add constraint operator_action_operation_subject_check
    check (subject_type <> 'operation' or (operation_id is not null and operation_id = subject_id));

create index operator_action_created_idx on operator_action (created_at desc, id desc);
create index operator_action_partner_idx on operator_action (partner_id, created_at desc, id desc) where partner_id is not null;
create index operator_action_action_idx on operator_action (action, created_at desc, id desc);

create table operator_action_use (
  action_id uuid primary key references operator_action(id),
  operation_id uuid not null,
  used_at timestamptz not null default now()
);

create function append_only_guard() returns trigger language plpgsql as $$
begin
  raise exception '% is append-only: % refused (an audit record is never changed or removed)', tg_table_name, tg_op
    using errcode = 'PP020';
end $$;

create trigger operator_action_append_only before update or delete on operator_action
  for each row execute function append_only_guard();
create trigger operator_action_no_truncate before truncate on operator_action
  for each statement execute function append_only_guard();
create trigger operator_action_use_append_only before update or delete on operator_action_use
  for each row execute function append_only_guard();
create trigger operator_action_use_no_truncate before truncate on operator_action_use
  for each statement execute function append_only_guard();
alter table operator_action enable always trigger operator_action_append_only;
alter table operator_action enable always trigger operator_action_no_truncate;
alter table operator_action_use enable always trigger operator_action_use_append_only;
alter table operator_action_use enable always trigger operator_action_use_no_truncate;

create table manual_credit (
  id uuid primary key,
  partner_id uuid not null references partner(id) deferrable initially deferred,
  currency text not null check (currency in ('eur', 'btc', 'doge', 'eth', 'ltc', 'pol', 'usdc')),
  amount numeric(38,18) not null check (amount > 0),
  -- At the configured rate when it was requested: what the approval threshold was compared with.
  amount_eur numeric(38,18) not null check (amount_eur >= 0),
  type text not null check (type in ('sepaDeposit', 'fiatDeposit', 'cryptoDeposit')),
  requested_by text not null check (length(requested_by) between 1 and 200),
  requested_os_user text not null check (length(requested_os_user) between 1 and 200),
  reason text check (length(reason) between 1 and 1000),
  requested_at timestamptz not null,
  status text not null check (status in ('PENDING', 'APPROVED')),
  approved_by text check (length(approved_by) between 1 and 200),
  approved_os_user text check (length(approved_os_user) between 1 and 200),
  approved_at timestamptz,
  -- The deposit (and ledger transfer) the approval posted.
  transaction_id uuid unique references deposit(id) deferrable initially deferred,
  check ((status = 'APPROVED') = (approved_by is not null and approved_os_user is not null
                                  and approved_at is not null and transaction_id is not null)),
  check (status = 'PENDING' or (approved_at is not null and approved_at >= requested_at))
);
create index manual_credit_pending_idx on manual_credit (requested_at) where status = 'PENDING';

create function manual_credit_guard() returns trigger language plpgsql as $$
begin
  if tg_op <> 'UPDATE' then
    raise exception 'manual_credit: % refused (a credit request is approved, never removed)', tg_op using errcode = 'PP021';
  end if;
  if old.status <> 'PENDING' or new.status <> 'APPROVED' then
    raise exception 'manual credit % is %: only a PENDING credit can be approved, once', old.id, old.status using errcode = 'PP021';
  end if;
  if (new.id, new.partner_id, new.currency, new.amount, new.amount_eur, new.type, new.requested_by, new.requested_os_user,
      new.reason, new.requested_at)
     is distinct from
     (old.id, old.partner_id, old.currency, old.amount, old.amount_eur, old.type, old.requested_by, old.requested_os_user,
      old.reason, old.requested_at) then
    raise exception 'manual credit %: what was requested cannot change', old.id using errcode = 'PP021';
  end if;
  if lower(new.approved_by) = lower(old.requested_by) then
    raise exception 'manual credit %: its requester cannot approve it', old.id using errcode = 'PP021';
  end if;
  return new;
end $$;
create trigger manual_credit_guard before update or delete on manual_credit
  for each row execute function manual_credit_guard();
create trigger manual_credit_no_truncate before truncate on manual_credit
  for each statement execute function manual_credit_guard();
alter table manual_credit enable always trigger manual_credit_guard;
alter table manual_credit enable always trigger manual_credit_no_truncate;
`);
  }
}
