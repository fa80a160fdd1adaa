import { Migration } from '@mikro-orm/migrations';

/**
 * What an EVM sweep paid the network, in the network's coin: the gas of its own transaction (out of the address's coins for a
 * native sweep, out of its top-up for a token's) and of its gas top-up from the hot wallet, read from their receipts once the
 * sweep's transaction is final. Posted as a NETWORK_FEE transfer (fee_transfer_id) in the transaction that ends the sweep,
 * SWEPT or REVERTED (a reverted transaction paid its gas too), as a UTXO sweep's miner fee is.
 */
export class Migration20261207000000_evm_sweep_network_fee extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table evm_sweep add column network_fee_base_units numeric(78, 0) check (network_fee_base_units > 0);
alter table evm_sweep add column fee_transfer_id uuid unique references ledger_transfer(id) deferrable initially deferred;
alter table evm_sweep add constraint evm_sweep_fee_posted check ((fee_transfer_id is null) = (network_fee_base_units is null));
-- Every sweep SWEPT from now on paid gas, posted with it; those that ended before are left as they are (not valid).
alter table evm_sweep add constraint evm_sweep_swept_fee check (status <> 'SWEPT' or fee_transfer_id is not null) not valid;
`);
  }
}
