import { Migration } from '@mikro-orm/migrations';

/**
 * An exchange's usual path in one round trip after the lock's read (issue 22): `execute_exchange`
 * does, in one call that is its own transaction, what executeExchange did in six round trips
 * (BEGIN, the operation's lock with its accepted request, the lock used, the transfer posted, the
 * exchange stored, COMMIT), for the case where nothing else has to be decided:
 * - the operation's advisory lock (the key lockOperation takes), so its attempts take turns; each
 *   statement below starts after the lock is granted and reads with a snapshot of its own
 *   (a VOLATILE plpgsql function in READ COMMITTED), so it sees what an earlier attempt committed;
 * - the request the API accepted for this id, as an exchange, for this workflow, equal to the
 *   workflow's input (jsonb equality: keys in any order, numbers by value);
 * - no exchange stored yet (else it is the answer: EXISTS);
 * - the partner's lock, unused and valid at the accepted request's time (by a millisecond's margin,
 *   as useValidRateLock), with the rates and fee the quote was computed from: marked used;
 * - then the transfer posted at once (ledger_open, whose refusals raise as always: PP002, PP003)
 *   and the exchange stored.
 * Anything else answers DECIDE having written nothing, and the activity exchanges step by step as
 * it always did (which refuses an operation the API did not accept, or a lock it cannot use, with
 * the precise reason). What is cast is cast only once the request is found accepted (the request's
 * time, the postings, the exchange given as JSON with the table's column names): a workflow input
 * that is not the API's fails nothing here, it is refused step by step.
 */
export class Migration20261130010000_exchange_in_one_statement extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create function execute_exchange(
  p_id text, p_workflow_id text, p_request jsonb, p_lock_id uuid, p_rates jsonb, p_fee_percentage numeric,
  p_postings jsonb, p_exchange jsonb, p_now timestamptz,
  out outcome text
) language plpgsql as $$
declare
  v_partner uuid;
begin
  -- As lockOperation: the same key, waits bounded below the activity's 30 s.
  perform set_config('lock_timeout', '20s', true);
  perform pg_advisory_xact_lock(hashtextextended(p_id, 0));

  select a.partner_id into v_partner from accepted_operation a
   where a.id = p_id::uuid and a.kind = 'EXCHANGE' and a.workflow_id = p_workflow_id and a.request = p_request;
  if not found then
    outcome := 'DECIDE';
    return;
  end if;

  if exists (select 1 from exchange where id = p_id::uuid) then
    outcome := 'EXISTS';
    return;
  end if;
  if (p_request->>'lockId') is distinct from p_lock_id::text then
    raise exception 'invariant violated: exchange % names another lock', p_id using errcode = 'PP009';
  end if;

  update rate_lock set used_at = p_now
   where id = p_lock_id and partner_id = v_partner and used_at is null
     and valid_until > (p_request->>'requestedAt')::timestamptz + interval '1 millisecond'
     and rates = p_rates and fee_percentage = p_fee_percentage;
  if not found then
    outcome := 'DECIDE';
    return;
  end if;

  if (p_exchange->>'id') is distinct from p_id or (p_exchange->>'partner_id')::uuid is distinct from v_partner
     or (p_exchange->>'lock_id')::uuid is distinct from p_lock_id then
    raise exception 'invariant violated: the exchange % is another operation''s', p_id using errcode = 'PP009';
  end if;
  perform ledger_open(p_id::uuid, 'EXCHANGE', 'POSTED', p_postings, p_now);
  insert into exchange select * from jsonb_populate_record(null::exchange, p_exchange);
  outcome := 'EXCHANGED';
end $$;
`);
  }
}
