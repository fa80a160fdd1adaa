import { Migration } from '@mikro-orm/migrations';

/**
 * The API remembers for a few seconds that a key hash is unknown (api/auth/api-key-cache.ts), so
 * a flood of made-up keys costs no query each. A key created meanwhile must work at once: the
 * api_key trigger now also announces a hash that becomes an active key's, as `created:<hash>` on
 * the same `api_key_changed` channel, and every API process forgets it as unknown when that
 * commits. That is an insert, and an update that leaves the key active (a new hash or owner, a
 * revocation undone), which is also announced by its old hash, as before.
 */
export class Migration20261124100000_api_key_created extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create or replace function api_key_changed() returns trigger language plpgsql as $$
begin
  -- Delivered to the listeners when the transaction commits, never before (nor after a rollback).
  if tg_op = 'TRUNCATE' then
    perform pg_notify('api_key_changed', '*');
    return null;
  end if;
  if tg_op in ('UPDATE', 'DELETE') then
    perform pg_notify('api_key_changed', old.key_hash);
  end if;
  if tg_op in ('INSERT', 'UPDATE') and new.revoked_at is null then
    perform pg_notify('api_key_changed', 'created:' || new.key_hash);
  end if;
  return null;
end $$;
create trigger api_key_created after insert on api_key
  for each row execute function api_key_changed();
`);
  }
}
