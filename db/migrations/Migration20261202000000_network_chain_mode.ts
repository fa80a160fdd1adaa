import { Migration } from '@mikro-orm/migrations';

/**
 * A UTXO network's chain is one of three (core/chain-parameters.ts, CHAIN_MODES): regtest, a local node's private chain,
 * has address prefixes of its own. `chain` is the column written from now on; `mainnet` stays, derived from it, for
 * every reader of the flag.
 */
export class Migration20261202000000_network_chain_mode extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table network_config add column chain text check (chain in ('mainnet', 'testnet', 'regtest'));
update network_config set chain = case when mainnet then 'mainnet' else 'testnet' end;
alter table network_config alter column chain set not null;
alter table network_config drop column mainnet;
alter table network_config add column mainnet boolean not null generated always as (chain = 'mainnet') stored;
`);
  }
}
