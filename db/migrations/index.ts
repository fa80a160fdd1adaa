import { Migration20261122000000_foundation } from './Migration20261122000000_foundation';
import { Migration20261122010000_off_the_happy_path } from './Migration20261122010000_off_the_happy_path';
import { Migration20261122020000_fast_ledger } from './Migration20261122020000_fast_ledger';
import { Migration20261122030000_fast_reads } from './Migration20261122030000_fast_reads';
import { Migration20261122040000_webhooks } from './Migration20261122040000_webhooks';
import { Migration20261122050000_simulated_bank } from './Migration20261122050000_simulated_bank';
import { Migration20261122060000_evm_chain } from './Migration20261122060000_evm_chain';
import { Migration20261124010000_accepted_operations } from './Migration20261124010000_accepted_operations';
import { Migration20261124040000_kept_network_fee } from './Migration20261124040000_kept_network_fee';
import { Migration20261124090000_least_privilege } from './Migration20261124090000_least_privilege';
import { Migration20261124110000_write_once_operations } from './Migration20261124110000_write_once_operations';
import { Migration20261124020000_operator_audit } from './Migration20261124020000_operator_audit';
import { Migration20261124100000_api_key_created } from './Migration20261124100000_api_key_created';
import { Migration20261125090000_partner_policy } from './Migration20261125090000_partner_policy';
import { Migration20261125100000_scoped_keys } from './Migration20261125100000_scoped_keys';
import { Migration20261125103000_partner_limit_sums } from './Migration20261125103000_partner_limit_sums';
import { Migration20261125110000_withdrawal_address_book } from './Migration20261125110000_withdrawal_address_book';
import { Migration20261126010000_deposit_addresses } from './Migration20261126010000_deposit_addresses';
import { Migration20261126090000_incoming_sepa } from './Migration20261126090000_incoming_sepa';
import { Migration20261126100000_evm_deposits } from './Migration20261126100000_evm_deposits';
import { Migration20261127010000_evm_sweeps } from './Migration20261127010000_evm_sweeps';
import { Migration20261127020000_evm_chain_identity } from './Migration20261127020000_evm_chain_identity';

/** Listed explicitly so migrations run the same from TypeScript sources and compiled output. */
export const MIGRATIONS = [
  { name: 'Migration20261122000000_foundation', class: Migration20261122000000_foundation },
  { name: 'Migration20261122010000_off_the_happy_path', class: Migration20261122010000_off_the_happy_path },
  { name: 'Migration20261122020000_fast_ledger', class: Migration20261122020000_fast_ledger },
  { name: 'Migration20261122030000_fast_reads', class: Migration20261122030000_fast_reads },
  { name: 'Migration20261122040000_webhooks', class: Migration20261122040000_webhooks },
  { name: 'Migration20261122050000_simulated_bank', class: Migration20261122050000_simulated_bank },
  { name: 'Migration20261122060000_evm_chain', class: Migration20261122060000_evm_chain },
  { name: 'Migration20261124010000_accepted_operations', class: Migration20261124010000_accepted_operations },
  { name: 'Migration20261124020000_operator_audit', class: Migration20261124020000_operator_audit },
  { name: 'Migration20261124040000_kept_network_fee', class: Migration20261124040000_kept_network_fee },
  { name: 'Migration20261124090000_least_privilege', class: Migration20261124090000_least_privilege },
  { name: 'Migration20261124100000_api_key_created', class: Migration20261124100000_api_key_created },
  { name: 'Migration20261124110000_write_once_operations', class: Migration20261124110000_write_once_operations },
  { name: 'Migration20261125090000_partner_policy', class: Migration20261125090000_partner_policy },
  { name: 'Migration20261125100000_scoped_keys', class: Migration20261125100000_scoped_keys },
  { name: 'Migration20261125103000_partner_limit_sums', class: Migration20261125103000_partner_limit_sums },
  { name: 'Migration20261125110000_withdrawal_address_book', class: Migration20261125110000_withdrawal_address_book },
  { name: 'Migration20261126010000_deposit_addresses', class: Migration20261126010000_deposit_addresses },
  { name: 'Migration20261126090000_incoming_sepa', class: Migration20261126090000_incoming_sepa },
  { name: 'Migration20261126100000_evm_deposits', class: Migration20261126100000_evm_deposits },
  { name: 'Migration20261127010000_evm_sweeps', class: Migration20261127010000_evm_sweeps },
  { name: 'Migration20261127020000_evm_chain_identity', class: Migration20261127020000_evm_chain_identity },
];
