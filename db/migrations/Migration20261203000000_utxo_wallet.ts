import { Migration } from '@mikro-orm/migrations';

/**
 * The UTXO networks' hot wallets: their scripts, the coins found paying them, and each withdrawal's signed transaction with
 * its fee-raising replacements, stored before sent. A coin is taken by at most one withdrawal (`reserved_for`), under the
 * wallet's row lock, in the transaction that stores the signed bytes; it is never given back silently. The chain identity
 * table now holds the UTXO networks too: they have no chain id (0), their genesis hash names the chain. Deposits on them are
 * crypto_deposit rows like EVM ones: the transaction's id in bare hex, and `log_index` the output's index (vout).
 */
export class Migration20261203000000_utxo_wallet extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table evm_chain_identity drop constraint evm_chain_identity_network_check;
alter table evm_chain_identity add constraint evm_chain_identity_network_check
  check (network in ('bitcoin', 'dogecoin', 'ethereum', 'litecoin', 'polygon'));
alter table evm_chain_identity drop constraint evm_chain_identity_chain_id_check;
alter table evm_chain_identity add constraint evm_chain_identity_chain_id_check
  check ((chain_id > 0) = (network in ('ethereum', 'polygon')) and chain_id >= 0);
alter table evm_chain_identity drop constraint evm_chain_identity_genesis_hash_check;
alter table evm_chain_identity add constraint evm_chain_identity_genesis_hash_check
  check (genesis_hash ~ case when network in ('ethereum', 'polygon') then '^0x[0-9a-f]{64}$' else '^[0-9a-f]{64}$' end);

alter table crypto_deposit drop constraint crypto_deposit_network_check;
alter table crypto_deposit add constraint crypto_deposit_network_check
  check (network in ('bitcoin', 'dogecoin', 'ethereum', 'litecoin', 'polygon'));
alter table crypto_deposit drop constraint crypto_deposit_currency_check;
alter table crypto_deposit add constraint crypto_deposit_currency_check check (currency in ('btc', 'doge', 'eth', 'ltc', 'pol', 'usdc'));
alter table crypto_deposit drop constraint crypto_deposit_transaction_hash_check;
alter table crypto_deposit add constraint crypto_deposit_transaction_hash_check
  check (transaction_hash ~ case when network in ('ethereum', 'polygon') then '^0x[0-9a-f]{64}$' else '^[0-9a-f]{64}$' end);
alter table crypto_deposit drop constraint crypto_deposit_block_hash_check;
alter table crypto_deposit add constraint crypto_deposit_block_hash_check
  check (block_hash ~ case when network in ('ethereum', 'polygon') then '^0x[0-9a-f]{64}$' else '^[0-9a-f]{64}$' end);
alter table crypto_deposit drop constraint crypto_deposit_address_check;
alter table crypto_deposit add constraint crypto_deposit_address_check
  check (case when network in ('ethereum', 'polygon') then address ~ '^0x[0-9a-fA-F]{40}$' else address ~ '^[0-9A-Za-z]{14,100}$' end);

-- One per UTXO network: locked while a withdrawal is signed, so two never take one coin; the next change address.
create table utxo_wallet (
  network text primary key check (network in ('bitcoin', 'dogecoin', 'litecoin')),
  -- The account's extended public key: a worker with another wallet's key refuses to sign from this one's coins.
  account_public_key text not null check (length(account_public_key) between 100 and 120),
  next_change_index integer not null default 0 check (next_change_index between 0 and 2147483647)
);

-- The wallet's own scripts: its receiving address (0/0) and each change address (1/i), so the scanner knows its coins.
create table utxo_wallet_script (
  network text not null references utxo_wallet(network),
  script_hex text not null check (script_hex ~ '^([0-9a-f]{2})+$' and length(script_hex) <= 100),
  key_chain smallint not null check (key_chain in (0, 1)),
  key_index integer not null check (key_index between 0 and 2147483647),
  primary key (network, script_hex),
  unique (network, key_chain, key_index)
);

-- Coins paying the wallet, as found in blocks. block_hash null: its block was reorganised away (spendable again once seen).
create table utxo_coin (
  network text not null,
  txid text not null check (txid ~ '^[0-9a-f]{64}$'),
  vout integer not null check (vout between 0 and 100000),
  value_base_units numeric(30, 0) not null check (value_base_units > 0),
  script_hex text not null,
  block_hash text check (block_hash ~ '^[0-9a-f]{64}$'),
  block_height integer check (block_height >= 0),
  -- The withdrawal whose signed transaction spends it: set once, with the signed bytes.
  reserved_for uuid,
  found_at timestamptz not null,
  primary key (network, txid, vout),
  foreign key (network, script_hex) references utxo_wallet_script(network, script_hex),
  check ((block_hash is null) = (block_height is null))
);
create index utxo_coin_spendable_ix on utxo_coin (network, value_base_units desc) where reserved_for is null and block_hash is not null;

-- One per withdrawal, so a retry with other details is refused.
create table utxo_transaction (
  withdrawal_id uuid primary key,
  network text not null check (network in ('bitcoin', 'dogecoin', 'litecoin')),
  destination text not null check (length(destination) between 14 and 100),
  amount_base_units numeric(30, 0) not null check (amount_base_units > 0),
  created_at timestamptz not null,
  -- Set when an input was found spent by a transaction that is none of its attempts: a finding, never a release.
  conflict_found_at timestamptz,
  conflict text check (length(conflict) <= 500)
);

-- The signed transaction and its replacements (same inputs, higher fee), stored before sent; sharing inputs, one lands.
create table utxo_transaction_attempt (
  withdrawal_id uuid not null references utxo_transaction(withdrawal_id) deferrable initially deferred,
  attempt integer not null check (attempt between 1 and 100),
  txid text not null unique check (txid ~ '^[0-9a-f]{64}$'),
  raw_transaction text not null check (raw_transaction ~ '^([0-9a-f]{2})+$' and length(raw_transaction) <= 200000),
  fee_base_units numeric(30, 0) not null check (fee_base_units > 0),
  -- Base units per virtual byte.
  fee_rate numeric(20, 3) not null check (fee_rate > 0),
  signed_at timestamptz not null,
  replaced_at timestamptz,
  primary key (withdrawal_id, attempt)
);

-- How far each network's blocks were read, with the hashes of the latest ones: a reorganisation is found by comparing them.
create table utxo_scanned_block (
  network text not null check (network in ('bitcoin', 'dogecoin', 'litecoin')),
  height integer not null check (height >= 0),
  block_hash text not null check (block_hash ~ '^[0-9a-f]{64}$'),
  primary key (network, height)
);
`);
  }
}
