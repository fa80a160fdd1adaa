import { Migration } from '@mikro-orm/migrations';

/**
 * A deposit is keyed by which transfer of its transaction it is, not by a log's place in its block: a reorganisation that
 * puts the same transaction in another block, or at another position, moves a log's index and would make a credited
 * deposit new again. `transfer_index` is -1 for an EVM value transfer, the position among the token's Transfer logs of
 * its transaction for an EVM token, and the output's index (vout) on a UTXO network. The key's unique index follows the rename, its CHECK
 * is renamed with it; rows recorded before keep the index they had (nothing runs in production yet).
 */
export class Migration20261204000000_deposit_transfer_index extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table crypto_deposit rename column log_index to transfer_index;
alter table crypto_deposit rename constraint crypto_deposit_log_index_check to crypto_deposit_transfer_index_check;
comment on column crypto_deposit.transfer_index is
  'Which transfer of its transaction: -1 for an EVM value transfer, the position among the token''s Transfer logs of the transaction for an EVM token, the output index (vout) on a UTXO network';
`);
  }
}
