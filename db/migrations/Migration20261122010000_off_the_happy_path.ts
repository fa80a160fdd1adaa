import { Migration } from '@mikro-orm/migrations';

/**
 * What keeps money safe off the happy path, enforced by the database itself:
 * - `handed_off_at`: set in the same transaction that decides to broadcast or submit, before the
 *   chain or bank is called. From then on the money may have left.
 * - `external_rejection`: the chain's or bank's definite answer that it did not leave.
 * - A trigger refuses to void the transfer of a handed-off operation without such an answer, so no
 *   Reset, retry, operator command or bug can refund money that has left.
 * - `ledger_tombstone()`: giving up on a reservation writes a voided, empty transfer under the
 *   operation's id; a late reservation then fails on the primary key instead of committing.
 * - `operator_action`: who did what to which operation, and why.
 */
export class Migration20261122010000_off_the_happy_path extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table crypto_withdrawal
  add column handed_off_at timestamptz,
  add column external_rejection text,
  add column cancel_requested_at timestamptz;
alter table sepa_transfer
  add column handed_off_at timestamptz,
  add column external_rejection text,
  add column cancel_requested_at timestamptz;

-- What the first version recorded as handed off (it set the stage before calling the chain).
update crypto_withdrawal set handed_off_at = updated_at
 where transaction_hash is not null or stage in ('BROADCASTING', 'BROADCAST', 'SETTLED');
update sepa_transfer set handed_off_at = updated_at
 where bank_reference is not null or stage in ('SUBMITTED', 'SETTLED');

create function ledger_transfer_void_guard() returns trigger language plpgsql as $$
begin
  -- Wait for a hand-off being committed right now, then look at what it wrote.
  perform 1 from crypto_withdrawal where id = new.id for share;
  perform 1 from sepa_transfer where id = new.id for share;
  if exists (select 1 from crypto_withdrawal w
              where w.id = new.id and (w.handed_off_at is not null or w.transaction_hash is not null)
                and w.external_rejection is null)
     or exists (select 1 from sepa_transfer s
                 where s.id = new.id and (s.handed_off_at is not null or s.bank_reference is not null)
                   and s.external_rejection is null) then
    raise exception 'ledger transfer % belongs to an operation handed to the chain or bank: only its definite rejection may void it', new.id
      using errcode = 'PP001';
  end if;
  return new;
end $$;
create trigger ledger_transfer_void_guard before update of state on ledger_transfer
  for each row when (new.state = 'VOIDED' and old.state <> 'VOIDED')
  execute function ledger_transfer_void_guard();

-- 'TOMBSTONED' when nothing was or will be moved under this id; 'MOVED' when a transfer with
-- postings committed first. Waits for a concurrent reservation of the same id to end.
create function ledger_tombstone(p_id uuid, p_kind text) returns text language plpgsql as $$
begin
  insert into ledger_transfer (id, kind, state, created_at, voided_at)
  values (p_id, p_kind, 'VOIDED', now(), now())
  on conflict (id) do nothing;
  if found then
    return 'TOMBSTONED';
  end if;
  if exists (select 1 from ledger_posting where transfer_id = p_id) then
    return 'MOVED';
  end if;
  return 'TOMBSTONED';
end $$;

-- Reconciliation looks at the holds: few rows among many transfers.
create index ledger_transfer_pending_idx on ledger_transfer(created_at) where state = 'PENDING';

create table operator_action (
  id uuid primary key,
  operation_id uuid not null,
  operation_type text not null check (operation_type in ('crypto-withdrawal', 'sepa-transfer')),
  action text not null check (action in ('release', 'settle', 'travel-rule-complete')),
  actor text not null check (length(actor) between 1 and 200),
  reason text not null check (length(reason) between 1 and 1000),
  details jsonb,
  created_at timestamptz not null default now()
);
create index operator_action_operation_idx on operator_action(operation_id, created_at);
`);
  }
}
