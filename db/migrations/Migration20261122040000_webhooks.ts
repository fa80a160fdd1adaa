import { Migration } from '@mikro-orm/migrations';

/**
 * Webhooks through an outbox, so that nothing is lost and nothing is sent for a change that did
 * not commit:
 * - `webhook_endpoint`: one endpoint per partner, with its Standard Webhooks signing secret.
 * - `webhook_event`: a trigger on crypto_withdrawal, sepa_transfer and exchange writes one event
 *   per inserted row and per change of `status` or `stage`, in the transaction of the change,
 *   numbered 1, 2, 3, … per operation (the changed row is locked, so the numbering is serial).
 *   Partners without an endpoint cost one primary-key lookup and get no rows.
 * - The dispatcher (activities/webhook-delivery.activities.ts) claims due events with
 *   `claimed_until` (a lease: a crashed delivery's claim expires), delivers each operation's
 *   lowest open sequence first, and records every attempt in `webhook_delivery_attempt`.
 */
export class Migration20261122040000_webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table webhook_endpoint (
  partner_id uuid primary key references partner(id) deferrable initially deferred,
  url text not null check (length(url) between 1 and 2048 and url ~ '^https?://'),
  secret text not null check (secret ~ '^whsec_[A-Za-z0-9+/]{32,}={0,2}$'),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table webhook_event (
  id text primary key check (length(id) between 1 and 100),
  partner_id uuid not null references partner(id) deferrable initially deferred,
  operation_type text not null check (operation_type in ('crypto-withdrawal', 'sepa-transfer', 'exchange')),
  operation_id uuid not null,
  sequence integer not null check (sequence > 0),
  type text not null check (type in ('crypto_withdrawal.status_changed', 'sepa_transfer.status_changed', 'exchange.status_changed')),
  payload jsonb not null,
  created_at timestamptz not null default now(),
  attempts integer not null default 0 check (attempts >= 0),
  next_attempt_at timestamptz not null default now(),
  claimed_until timestamptz,
  delivered_at timestamptz,
  given_up_at timestamptz,
  last_error text check (length(last_error) <= 1000),
  unique (operation_id, sequence),
  check (delivered_at is null or given_up_at is null)
);
-- What the dispatcher polls: only the open events, by due time.
create index webhook_event_due_idx on webhook_event (next_attempt_at) where delivered_at is null and given_up_at is null;
-- The delivery log, newest first.
create index webhook_event_partner_log_idx on webhook_event (partner_id, created_at desc, id desc);

create table webhook_delivery_attempt (
  id uuid primary key,
  event_id text not null references webhook_event(id) deferrable initially deferred,
  attempt integer not null check (attempt > 0),
  attempted_at timestamptz not null,
  http_status integer check (http_status between 100 and 599),
  error text check (length(error) <= 1000),
  duration_ms integer not null check (duration_ms >= 0)
);
create index webhook_delivery_attempt_event_idx on webhook_delivery_attempt (event_id, attempt);

create function webhook_event_on_status_change() returns trigger language plpgsql as $$
declare
  v_row jsonb := to_jsonb(new);
  v_operation_type text := replace(tg_table_name, '_', '-');
  v_event_type text := tg_table_name || '.status_changed';
  v_event_id text := 'evt_' || replace(gen_random_uuid()::text, '-', '');
  v_user_id text;
  v_sequence integer;
  v_data jsonb;
begin
  -- Partners without an endpoint cost this one primary-key lookup.
  perform 1 from webhook_endpoint where partner_id = new.partner_id;
  if not found then
    return null;
  end if;
  -- The partner knows its users by its own id (sourceExternalUserId), not by ours.
  if v_row->>'user_id' is not null then
    select external_user_id into v_user_id from partner_user where id = (v_row->>'user_id')::uuid;
  end if;
  -- This change holds the operation's row lock (or inserts the row): one numbering at a time.
  select coalesce(max(sequence), 0) + 1 into v_sequence from webhook_event where operation_id = new.id;
  v_data := jsonb_build_object(
    'id', new.id,
    'status', new.status,
    -- An exchange has no stage column: it is stored once, final.
    'stage', coalesce(v_row->>'stage', case new.status when 'SUCCESSFUL' then 'SETTLED' when 'UNSUCCESSFUL' then 'FAILED' else 'EXCHANGING' end),
    'failureReason', coalesce(v_row->'failure_reason', 'null'::jsonb),
    'sequence', v_sequence);
  if v_user_id is not null then
    v_data := v_data || jsonb_build_object('userId', v_user_id);
  end if;
  insert into webhook_event (id, partner_id, operation_type, operation_id, sequence, type, payload, created_at, next_attempt_at)
  values (v_event_id, new.partner_id, v_operation_type, new.id, v_sequence, v_event_type,
          jsonb_build_object(
            'id', v_event_id,
            'type', v_event_type,
            'timestamp', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
            'data', v_data),
          now(), now());
  return null;
end $$;

-- Inserts always make an event; updates only when status or stage really changed, so a no-op
-- update (or one of other columns) makes none.
create trigger crypto_withdrawal_webhook_insert after insert on crypto_withdrawal
  for each row execute function webhook_event_on_status_change();
create trigger crypto_withdrawal_webhook_update after update of status, stage on crypto_withdrawal
  for each row when (old.status is distinct from new.status or old.stage is distinct from new.stage)
  execute function webhook_event_on_status_change();
create trigger sepa_transfer_webhook_insert after insert on sepa_transfer
  for each row execute function webhook_event_on_status_change();
create trigger sepa_transfer_webhook_update after update of status, stage on sepa_transfer
  for each row when (old.status is distinct from new.status or old.stage is distinct from new.stage)
  execute function webhook_event_on_status_change();
create trigger exchange_webhook_insert after insert on exchange
  for each row execute function webhook_event_on_status_change();
create trigger exchange_webhook_update after update of status on exchange
  for each row when (old.status is distinct from new.status)
  execute function webhook_event_on_status_change();
`);
  }
}
