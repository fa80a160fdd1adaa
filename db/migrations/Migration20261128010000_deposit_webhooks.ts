import { Migration } from '@mikro-orm/migrations';

/**
 * Every credit to a partner sends `deposit.succeeded`, not only the deposits found on chain:
 * money that arrived by SEPA credit transfer (the incoming-sepa ingest, or an operator's
 * `bank assign`) and an operator's manual credit (`ops deposit`) are rows of `deposit`, and its
 * insert now writes the event into the outbox in the same transaction (subject `deposit`). A
 * `deposit` row is final when written: one event, sequence 1, SUCCESSFUL/CREDITED.
 * Every deposit event now carries `type`, the history entry's type (cryptoDeposit, sepaDeposit,
 * fiatDeposit), so a receiver tells them apart without a second call; `network` and
 * `transactionHash` are null for money that did not come on chain. The crypto deposits' trigger
 * function is replaced to add `type`; its triggers are unchanged.
 */
export class Migration20261128010000_deposit_webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table webhook_event
  drop constraint webhook_event_operation_type_check,
  add constraint webhook_event_operation_type_check
    check (operation_type in ('crypto-withdrawal', 'sepa-transfer', 'exchange', 'crypto-deposit', 'deposit', 'withdrawal-address'));

create or replace function webhook_event_on_crypto_deposit() returns trigger language plpgsql as $$
declare
  v_event_type text := case new.status when 'IN_PROGRESS' then 'deposit.pending'
                                       when 'SUCCESSFUL' then 'deposit.succeeded'
                                       else 'deposit.failed' end;
  v_event_id text := 'evt_' || replace(gen_random_uuid()::text, '-', '');
  v_sequence integer;
begin
  -- Partners without an endpoint cost this one primary-key lookup.
  perform 1 from webhook_endpoint where partner_id = new.partner_id;
  if not found then
    return null;
  end if;
  -- This change holds the deposit's row lock (or inserts the row): one numbering at a time.
  select coalesce(max(sequence), 0) + 1 into v_sequence from webhook_event where operation_id = new.id;
  insert into webhook_event (id, partner_id, operation_type, operation_id, sequence, type, payload, created_at, next_attempt_at)
  values (v_event_id, new.partner_id, 'crypto-deposit', new.id, v_sequence, v_event_type,
          jsonb_build_object(
            'id', v_event_id,
            'type', v_event_type,
            'timestamp', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
            'data', jsonb_build_object(
              'id', new.id,
              'type', 'cryptoDeposit',
              'status', new.status,
              'stage', new.stage,
              'failureReason', coalesce(to_jsonb(new.failure_reason), 'null'::jsonb),
              'sequence', v_sequence,
              'network', new.network,
              'currency', new.currency,
              -- Text: a JSON number would pass through a float on many receivers.
              'amount', trim_scale(new.amount)::text,
              'transactionHash', new.transaction_hash)),
          now(), now());
  return null;
end $$;

create function webhook_event_on_deposit() returns trigger language plpgsql as $$
declare
  v_event_id text := 'evt_' || replace(gen_random_uuid()::text, '-', '');
begin
  perform 1 from webhook_endpoint where partner_id = new.partner_id;
  if not found then
    return null;
  end if;
  insert into webhook_event (id, partner_id, operation_type, operation_id, sequence, type, payload, created_at, next_attempt_at)
  values (v_event_id, new.partner_id, 'deposit', new.id, 1, 'deposit.succeeded',
          jsonb_build_object(
            'id', v_event_id,
            'type', 'deposit.succeeded',
            'timestamp', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
            'data', jsonb_build_object(
              'id', new.id,
              'type', new.type,
              'status', 'SUCCESSFUL',
              'stage', 'CREDITED',
              'failureReason', 'null'::jsonb,
              'sequence', 1,
              'network', 'null'::jsonb,
              'currency', new.currency,
              'amount', trim_scale(new.amount)::text,
              'transactionHash', 'null'::jsonb)),
          now(), now());
  return null;
end $$;

-- A deposit row is final when written: payments_app may insert it, never change it (Migration20261124110000_write_once_operations).
create trigger deposit_webhook_insert after insert on deposit
  for each row execute function webhook_event_on_deposit();
`);
  }
}
