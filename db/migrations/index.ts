import { Migration20261201000000_baseline } from './Migration20261201000000_baseline';
import { Migration20261202000000_network_chain_mode } from './Migration20261202000000_network_chain_mode';
import { Migration20261203000000_utxo_wallet } from './Migration20261203000000_utxo_wallet';
import { Migration20261204000000_deposit_transfer_index } from './Migration20261204000000_deposit_transfer_index';
import { Migration20261205000000_network_fee_expense } from './Migration20261205000000_network_fee_expense';
import { Migration20261206000000_utxo_sweep } from './Migration20261206000000_utxo_sweep';
import { Migration20261207000000_evm_sweep_network_fee } from './Migration20261207000000_evm_sweep_network_fee';
import { Migration20261208000000_bank_document_exception } from './Migration20261208000000_bank_document_exception';
import { Migration20261209000000_manual_credit_incoming } from './Migration20261209000000_manual_credit_incoming';
import { Migration20261210000000_operator_role } from './Migration20261210000000_operator_role';

/** Listed so they run the same from sources and compiled output; only ever appended to (docs/production.md, "Schema changes"). */
export const MIGRATIONS = [
  { name: 'Migration20261201000000_baseline', class: Migration20261201000000_baseline },
  { name: 'Migration20261202000000_network_chain_mode', class: Migration20261202000000_network_chain_mode },
  { name: 'Migration20261203000000_utxo_wallet', class: Migration20261203000000_utxo_wallet },
  { name: 'Migration20261204000000_deposit_transfer_index', class: Migration20261204000000_deposit_transfer_index },
  { name: 'Migration20261205000000_network_fee_expense', class: Migration20261205000000_network_fee_expense },
  { name: 'Migration20261206000000_utxo_sweep', class: Migration20261206000000_utxo_sweep },
  { name: 'Migration20261207000000_evm_sweep_network_fee', class: Migration20261207000000_evm_sweep_network_fee },
  { name: 'Migration20261208000000_bank_document_exception', class: Migration20261208000000_bank_document_exception },
  { name: 'Migration20261209000000_manual_credit_incoming', class: Migration20261209000000_manual_credit_incoming },
  { name: 'Migration20261210000000_operator_role', class: Migration20261210000000_operator_role },
];
