import { Migration } from '@mikro-orm/migrations';

/**
 * An unmatched incoming SEPA credit assigned to a partner goes through the manual-credit approval like a manual deposit
 * (above the threshold, or to a partner that does not own the IBAN the money came to): the pending credit names the
 * incoming credit, and its approval credits it out of suspense instead of minting. What was requested stays as it was,
 * the new column included.
 */
export class Migration20261209000000_manual_credit_incoming extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table manual_credit add column incoming_entry_ref text references incoming_sepa_credit(entry_ref) deferrable initially deferred;
create index manual_credit_incoming_idx on manual_credit (incoming_entry_ref) where incoming_entry_ref is not null;

create or replace function manual_credit_guard() returns trigger language plpgsql as $$
begin
  if tg_op <> 'UPDATE' then
    raise exception 'manual_credit: % refused (a credit request is approved, never removed)', tg_op using errcode = 'PP021';
  end if;
  if old.status <> 'PENDING' or new.status <> 'APPROVED' then
    raise exception 'manual credit % is %: only a PENDING credit can be approved, once', old.id, old.status using errcode = 'PP021';
  end if;
  if (new.id, new.partner_id, new.currency, new.amount, new.amount_eur, new.type, new.requested_by, new.requested_os_user,
      new.reason, new.requested_at, new.incoming_entry_ref)
     is distinct from
     (old.id, old.partner_id, old.currency, old.amount, old.amount_eur, old.type, old.requested_by, old.requested_os_user,
      old.reason, old.requested_at, old.incoming_entry_ref) then
    raise exception 'manual credit %: what was requested cannot change', old.id using errcode = 'PP021';
  end if;
  if lower(new.approved_by) = lower(old.requested_by) then
    raise exception 'manual credit %: its requester cannot approve it', old.id using errcode = 'PP021';
  end if;
  return new;
end $$;
`);
  }
}
