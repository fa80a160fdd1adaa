import { Migration } from '@mikro-orm/migrations';

/**
 * Crypto deposits on the EVM networks, found by the deposit watcher (activities/evm-deposit.activities.ts):
 * - `crypto_deposit`: one row per transfer to a partner's deposit address, keyed by (network,
 *   transaction hash, log index; -1 for a native transfer) among the rows still on chain, with
 *   the block it was seen in. IN_PROGRESS/SEEN when seen, SUCCESSFUL/CREDITED in the transaction
 *   of its ledger credit (a DEPOSIT transfer under the deposit's id), UNSUCCESSFUL when below the
 *   network's minimum (BELOW_MINIMUM) or when a reorganisation removed its block first
 *   (ORPHANED: it leaves the key free, so the transaction seen again in another block is a new
 *   deposit). A credited deposit whose block is removed keeps its credit and gets
 *   `block_orphaned_at`: a reconciliation finding, never a silent reversal.
 * - `evm_deposit_cursor`: per network, the last block read, and the chain it was read on (chain
 *   id and genesis hash): a node on another chain is noticed, not read as a reorganisation.
 * - `evm_scanned_block`: the hash of each block read (the last few hundred), to find the fork
 *   point when the node's chain no longer goes through them.
 * - Webhooks: deposit.pending, deposit.succeeded and deposit.failed, one per status (a trigger, as
 *   for the operations: Migration20261122040000_webhooks).
 * - An index on partners' wallet addresses in lower case: a batch of blocks looks up every
 *   recipient it saw in one query.
 */
export class Migration20261126100000_evm_deposits extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table crypto_deposit (
  id uuid primary key,
  partner_id uuid not null references partner(id) deferrable initially deferred,
  account_id uuid not null,
  network text not null check (network in ('ethereum', 'polygon')),
  currency text not null check (currency in ('eth', 'pol', 'usdc')),
  amount numeric(38,18) not null check (amount > 0),
  transaction_hash text not null check (transaction_hash ~ '^0x[0-9a-f]{64}$'),
  log_index integer not null check (log_index >= -1),
  block_number bigint not null check (block_number >= 0),
  block_hash text not null check (block_hash ~ '^0x[0-9a-f]{64}$'),
  address text not null check (address ~ '^0x[0-9a-fA-F]{40}$'),
  status text not null check (status in ('IN_PROGRESS', 'SUCCESSFUL', 'UNSUCCESSFUL')),
  stage text not null check (stage in ('SEEN', 'CREDITED', 'BELOW_MINIMUM', 'ORPHANED')),
  failure_reason text check (failure_reason in ('BELOW_MINIMUM_DEPOSIT', 'REMOVED_BY_REORGANISATION')),
  created_at timestamptz not null default now(),
  credited_at timestamptz,
  block_orphaned_at timestamptz,
  -- The credited account is the partner's account in the deposit's currency.
  foreign key (account_id, currency) references account(id, currency) deferrable initially deferred,
  check ((status = 'IN_PROGRESS') = (stage = 'SEEN')),
  check ((status = 'SUCCESSFUL') = (stage = 'CREDITED')),
  check ((stage = 'CREDITED') = (credited_at is not null)),
  check ((status = 'UNSUCCESSFUL') = (failure_reason is not null)),
  check (block_orphaned_at is null or stage = 'CREDITED')
);
-- One live deposit per transfer on chain; an orphaned one frees its key.
create unique index crypto_deposit_chain_key on crypto_deposit (network, transaction_hash, log_index) where stage <> 'ORPHANED';
-- The history's order per partner (Migration20261122030000_fast_reads).
create index crypto_deposit_partner_history_idx on crypto_deposit (partner_id, created_at desc, id desc);
-- What a rewind or a round of crediting reads: a network's deposits from a block on.
create index crypto_deposit_block_idx on crypto_deposit (network, block_number);
create index crypto_deposit_below_minimum_idx on crypto_deposit (created_at) where stage = 'BELOW_MINIMUM';
create index crypto_deposit_orphaned_credit_idx on crypto_deposit (block_orphaned_at) where block_orphaned_at is not null;

create table evm_deposit_cursor (
  network text primary key check (network in ('ethereum', 'polygon')),
  chain_id bigint not null check (chain_id > 0),
  genesis_hash text not null check (genesis_hash ~ '^0x[0-9a-f]{64}$'),
  last_block bigint not null check (last_block >= 0),
  updated_at timestamptz not null
);

create table evm_scanned_block (
  network text not null check (network in ('ethereum', 'polygon')),
  number bigint not null check (number >= 0),
  hash text not null check (hash ~ '^0x[0-9a-f]{64}$'),
  parent_hash text not null check (parent_hash ~ '^0x[0-9a-f]{64}$'),
  primary key (network, number)
);

-- Run with earlier migrations in one transaction: their deferred checks on account (a new account row) fire
-- now, since an index cannot be built on a table with pending trigger events.
set constraints all immediate;
create index account_wallet_address_lower_idx on account (lower(wallet_address)) where kind = 'PARTNER' and wallet_address is not null;

alter table webhook_event
  drop constraint webhook_event_operation_type_check,
  add constraint webhook_event_operation_type_check
    check (operation_type in ('crypto-withdrawal', 'sepa-transfer', 'exchange', 'crypto-deposit', 'withdrawal-address')),
  drop constraint webhook_event_type_check,
  add constraint webhook_event_type_check
    check (type in ('crypto_withdrawal.status_changed', 'sepa_transfer.status_changed', 'exchange.status_changed',
                    'deposit.pending', 'deposit.succeeded', 'deposit.failed',
                    'withdrawal_address.created', 'withdrawal_address.deleted'));

create function webhook_event_on_crypto_deposit() returns trigger language plpgsql as $$
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

-- One event per status: a change of stage alone (a below-minimum deposit whose block is removed) sends none.
create trigger crypto_deposit_webhook_insert after insert on crypto_deposit
  for each row execute function webhook_event_on_crypto_deposit();
create trigger crypto_deposit_webhook_update after update of status on crypto_deposit
  for each row when (old.status is distinct from new.status)
  execute function webhook_event_on_crypto_deposit();

-- Migration20261124090000_least_privilege: the whole list again, with crypto_deposit and the cursor (never deleted).
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
      ('partner_policy', 'delete'),
      ('crypto_deposit', 'delete'),
      ('evm_deposit_cursor', 'delete')
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
