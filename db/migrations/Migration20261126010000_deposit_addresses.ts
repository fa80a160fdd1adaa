import { Migration } from '@mikro-orm/migrations';

/**
 * Deposit addresses derived from the service's HD keys (core/deposit-addresses.ts): each partner
 * gets a derivation index from a sequence that never cycles, unique, never reused (partners are
 * never deleted: payments_app may not), and a partner's crypto accounts carry address `index` of
 * each key family. Partners that exist get indexes in the order they were created.
 *
 * Their accounts keep the random addresses they had: SQL cannot derive an address (it has no
 * key), so `npm start` and `npm run start:cluster` re-derive development partners' addresses with
 * their development seed at start (db/services/deposit-address.service.ts). Nothing runs in
 * production yet; a production database would need the same step with the production keys.
 *
 * One address belongs to one account per currency, which is also the index the deposit watcher
 * finds "is this address ours?" by (db/queries/deposit-address.queries.ts).
 */
export class Migration20261126010000_deposit_addresses extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create sequence partner_deposit_index_seq as integer minvalue 0 maxvalue 2147483647 start with 0 no cycle;
alter table partner add column deposit_index integer;
with numbered as (select id, row_number() over (order by created_at, id) - 1 as deposit_index from partner)
  update partner set deposit_index = numbered.deposit_index from numbered where partner.id = numbered.id;
select setval('partner_deposit_index_seq', coalesce((select max(deposit_index) + 1 from partner), 0), false);
alter sequence partner_deposit_index_seq owned by partner.deposit_index;
alter table partner
  alter column deposit_index set default nextval('partner_deposit_index_seq'),
  alter column deposit_index set not null,
  -- BIP32's non-hardened indexes: what a public key derives.
  add constraint partner_deposit_index_check check (deposit_index between 0 and 2147483647);
create unique index partner_deposit_index_uq on partner(deposit_index);
create unique index account_currency_wallet_address_uq on account(currency, wallet_address) where wallet_address is not null;
`);
  }
}
