import { Migration } from '@mikro-orm/migrations';

/**
 * What the read endpoints need to stay fast at any size:
 * - History: each table of partner movements gets an index in the history's own order
 *   (partner, created_at desc, id desc). One page of the month is then a merge of four index scans
 *   that stops after `limit` rows, whatever the month holds. They replace the
 *   (partner_id, created_at) indexes of the foundation, which they cover.
 * - API keys: the API keeps key hashes in memory. A trigger announces every change that can end a
 *   key (revocation, deletion, a changed hash or owner) on the `api_key_changed` channel, with the
 *   key's hash as payload ('*' for all keys, after a TRUNCATE), so every API process forgets the key
 *   as soon as the change commits (db/queries/api-key-changes.ts listens).
 */
export class Migration20261122030000_fast_reads extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create index deposit_partner_history_idx on deposit (partner_id, created_at desc, id desc);
drop index deposit_partner_created_idx;
create index exchange_partner_history_idx on exchange (partner_id, created_at desc, id desc);
drop index exchange_partner_created_idx;
create index crypto_withdrawal_partner_history_idx on crypto_withdrawal (partner_id, created_at desc, id desc);
drop index crypto_withdrawal_partner_created_idx;
create index sepa_transfer_partner_history_idx on sepa_transfer (partner_id, created_at desc, id desc);
drop index sepa_transfer_partner_created_idx;

create function api_key_changed() returns trigger language plpgsql as $$
begin
  -- Delivered to the listeners when the transaction commits, never before (nor after a rollback).
  if tg_op = 'TRUNCATE' then
    perform pg_notify('api_key_changed', '*');
  else
    perform pg_notify('api_key_changed', old.key_hash);
  end if;
  return null;
end $$;
create trigger api_key_changed after update of revoked_at, key_hash, partner_id or delete on api_key
  for each row execute function api_key_changed();
create trigger api_key_truncated after truncate on api_key
  for each statement execute function api_key_changed();
`);
  }
}
