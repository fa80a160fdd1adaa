import { Migration } from '@mikro-orm/migrations';

/**
 * The EVM chain adapter's state (activities/adapters/chain/evm/), what makes a withdrawal go on
 * chain exactly once:
 * - `evm_wallet_nonce`: the next nonce of each hot wallet per network. Taken under a row lock in
 *   the transaction that stores the signed transaction, so nonces are gap-free and each belongs
 *   to one withdrawal.
 * - `evm_transaction`: one row per withdrawal (its id is the primary key), with the nonce it owns
 *   and what it pays, so a retry with other details is refused. `unique (network, from_address,
 *   nonce)`: one withdrawal per nonce, whatever a bug tries.
 * - `evm_transaction_attempt`: the signed bytes and hash of the first transaction and of each
 *   replacement at the same nonce with higher fees, stored before they are sent. Whichever
 *   attempt lands is the withdrawal's transaction; at most one can, as they share the nonce.
 * No foreign key to crypto_withdrawal: the adapter knows withdrawals only by the id it is given.
 */
export class Migration20261122060000_evm_chain extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table evm_wallet_nonce (
  network text not null check (network in ('ethereum', 'polygon')),
  address text not null check (address ~ '^0x[0-9a-f]{40}$'),
  next_nonce bigint not null check (next_nonce >= 0),
  primary key (network, address)
);

create table evm_transaction (
  withdrawal_id uuid primary key,
  network text not null check (network in ('ethereum', 'polygon')),
  chain_id bigint not null check (chain_id > 0),
  from_address text not null check (from_address ~ '^0x[0-9a-f]{40}$'),
  nonce bigint not null check (nonce >= 0),
  currency text not null check (currency in ('eth', 'pol', 'usdc')),
  destination text not null check (destination ~ '^0x[0-9a-f]{40}$'),
  -- In the currency's smallest unit (wei, or the token's 6 decimals): the integer that is signed.
  amount_base_units numeric(78, 0) not null check (amount_base_units > 0),
  created_at timestamptz not null,
  unique (network, from_address, nonce)
);

create table evm_transaction_attempt (
  withdrawal_id uuid not null references evm_transaction(withdrawal_id) deferrable initially deferred,
  attempt integer not null check (attempt between 1 and 100),
  transaction_hash text not null unique check (transaction_hash ~ '^0x[0-9a-f]{64}$'),
  raw_transaction text not null check (raw_transaction ~ '^0x([0-9a-f]{2})+$' and length(raw_transaction) <= 10000),
  gas_limit numeric(78, 0) not null check (gas_limit > 0),
  max_fee_per_gas numeric(78, 0) not null check (max_fee_per_gas > 0),
  max_priority_fee_per_gas numeric(78, 0) not null check (max_priority_fee_per_gas >= 0 and max_priority_fee_per_gas <= max_fee_per_gas),
  signed_at timestamptz not null,
  -- Set when a replacement with higher fees is signed; the replaced attempt may still land.
  replaced_at timestamptz,
  primary key (withdrawal_id, attempt)
);`);
  }
}
