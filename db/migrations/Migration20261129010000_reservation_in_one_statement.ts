import { Migration } from '@mikro-orm/migrations';

/**
 * An outgoing payment's usual reservation in one round trip (issue 22): `reserve_outgoing_payment`
 * does, in one call that is its own transaction, what the reserving activity did in six round
 * trips (BEGIN, the operation's lock with its accepted request, the facts, the hold, the record,
 * COMMIT), for the case where nothing else has to be decided:
 * - the operation's advisory lock (the key lockOperation takes), so its attempts take turns; each
 *   statement below starts after the lock is granted and reads with a snapshot of its own
 *   (a VOLATILE plpgsql function in READ COMMITTED), so it sees what an earlier attempt committed;
 * - the request the API accepted for this id, of this kind, for this workflow, equal to the
 *   workflow's input (jsonb equality: keys in any order, numbers by value);
 * - no record yet (else its state is the answer: EXISTS);
 * - no daily limit and no required address book in the partner's policy, and for a SEPA transfer
 *   an ACTIVE EUR account;
 * - then the hold (ledger_open, whose refusals raise as always: PP002, PP003) and the record.
 * Anything else answers DECIDE having written nothing, and the activity reserves step by step as
 * it always did (which also refuses an operation the API did not accept, and records why).
 * The record is given as JSON with the table's column names; columns it does not name are null.
 */
export class Migration20261129010000_reservation_in_one_statement extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create function reserve_outgoing_payment(
  p_table text, p_id text, p_kind text, p_workflow_id text, p_request jsonb,
  p_postings jsonb, p_record jsonb, p_now timestamptz,
  out outcome text, out existing_status text, out existing_stage text
) language plpgsql as $$
declare
  v_partner uuid;
begin
  if p_table not in ('crypto_withdrawal', 'sepa_transfer') then
    raise exception 'invariant violated: % is no outgoing payment', p_table using errcode = 'PP009';
  end if;
  -- As lockOperation: the same key, waits bounded below the activity's 30 s.
  perform set_config('lock_timeout', '20s', true);
  perform pg_advisory_xact_lock(hashtextextended(p_id, 0));

  select a.partner_id into v_partner from accepted_operation a
   where a.id = p_id::uuid and a.kind = p_kind and a.workflow_id = p_workflow_id and a.request = p_request;
  if not found then
    outcome := 'DECIDE';
    return;
  end if;

  if p_table = 'crypto_withdrawal' then
    select r.status, r.stage into existing_status, existing_stage from crypto_withdrawal r where r.id = p_id::uuid;
  else
    select r.status, r.stage into existing_status, existing_stage from sepa_transfer r where r.id = p_id::uuid;
  end if;
  if existing_status is not null then
    outcome := 'EXISTS';
    return;
  end if;

  -- A daily limit (its lock and sums) or a required address book is decided step by step.
  if exists (select 1 from partner_policy
              where partner_id = v_partner and (daily_limit_eur is not null or allowlist_required)) then
    outcome := 'DECIDE';
    return;
  end if;
  if p_table = 'sepa_transfer' and not exists (
       select 1 from account
        where kind = 'PARTNER' and partner_id = v_partner and currency = 'eur' and fiat_status = 'ACTIVE') then
    outcome := 'DECIDE';
    return;
  end if;

  if (p_record->>'id') is distinct from p_id or (p_record->>'partner_id')::uuid is distinct from v_partner then
    raise exception 'invariant violated: the record of % is another operation''s', p_id using errcode = 'PP009';
  end if;
  perform ledger_open(p_id::uuid, p_kind, 'PENDING', p_postings, p_now);
  if p_table = 'crypto_withdrawal' then
    insert into crypto_withdrawal select * from jsonb_populate_record(null::crypto_withdrawal, p_record);
  else
    insert into sepa_transfer select * from jsonb_populate_record(null::sepa_transfer, p_record);
  end if;
  outcome := 'RESERVED';
end $$;
`);
  }
}
