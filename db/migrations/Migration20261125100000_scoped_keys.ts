import { Migration } from '@mikro-orm/migrations';

/**
 * What a leaked key can do, bounded (`ops key create --scope --expires-in-days`, `ops key rotate`):
 * - `scope`: `read` keys only read (the API answers anything but GET/HEAD with 403 P440);
 *   `payments`, the default and what every key before this could do, may do everything.
 * - `expires_at`: null, never; from that instant on the key answers 401 like a revoked one.
 *   Rotation sets it on the old key (the overlap), so it is announced like a revocation.
 * - `last_used_at`: coarse, written at most once a minute per key. It is not announced: the
 *   api_key_changed trigger now fires only when a column that authentication reads actually
 *   changes, else every API process would drop its cache of the key every minute.
 * - `replaced_by`: the key a rotation issued in its place; a key is rotated once (its replacement
 *   is the one to rotate next), so a lost rotation output cannot leave a second live key behind.
 * payments_app already may update api_key (only DELETE is withheld: Migration20261124110000).
 */
export class Migration20261125100000_scoped_keys extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table api_key
  add column scope text not null default 'payments' check (scope in ('read', 'payments')),
  add column expires_at timestamptz,
  add column last_used_at timestamptz,
  add column replaced_by uuid references api_key(id) deferrable initially deferred;

drop trigger api_key_changed on api_key;
create trigger api_key_changed after update of revoked_at, key_hash, partner_id, scope, expires_at on api_key
  for each row when (
    old.revoked_at is distinct from new.revoked_at
    or old.key_hash is distinct from new.key_hash
    or old.partner_id is distinct from new.partner_id
    or old.scope is distinct from new.scope
    or old.expires_at is distinct from new.expires_at)
  execute function api_key_changed();
-- A WHEN clause cannot read NEW in a DELETE trigger: deletion gets its own, as before.
create trigger api_key_deleted after delete on api_key
  for each row execute function api_key_changed();
`);
  }
}
