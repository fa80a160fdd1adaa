import { Migration } from '@mikro-orm/migrations';

/**
 * Every foreign key is checked at commit: MikroORM orders the inserts of one flush only by
 * relations it knows, and these entities keep plain id columns.
 *
 * The whole schema of the foundation and of money movement. Written by hand so that the
 * database itself enforces what must never break: balanced transfers (a deferred trigger),
 * no partner balance below zero (a CHECK), one lock per exchange, one key per partner.
 */
export class Migration20261122000000_foundation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table partner (
  id uuid primary key,
  name text not null check (length(name) between 1 and 200),
  fee_percentage numeric(7,4) not null check (fee_percentage >= 0 and fee_percentage < 100),
  created_at timestamptz not null default now()
);

create table api_key (
  id uuid primary key,
  partner_id uuid not null references partner(id) deferrable initially deferred,
  key_hash text not null unique,
  key_prefix text not null,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index api_key_partner_idx on api_key(partner_id);

create table partner_user (
  id uuid primary key,
  partner_id uuid not null references partner(id) deferrable initially deferred,
  external_user_id text not null,
  email text not null,
  first_name text not null,
  last_name text not null,
  address text not null,
  city text not null,
  country text not null check (country ~ '^[A-Z]{2}$'),
  document_type text not null,
  document_number text not null,
  pesel text,
  birth_country text check (birth_country ~ '^[A-Z]{2}$'),
  birth_date date,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (partner_id, external_user_id)
);

create table account (
  id uuid primary key,
  kind text not null check (kind in ('PARTNER', 'SYSTEM')),
  partner_id uuid references partner(id) deferrable initially deferred,
  system_code text,
  currency text not null check (currency in ('eur', 'btc', 'doge', 'eth', 'ltc', 'pol', 'usdc')),
  iban text,
  fiat_status text check (fiat_status in ('ACTIVE', 'WAITING_TO_BE_ACTIVATED')),
  wallet_address text,
  posted_amount numeric(38,18) not null default 0,
  pending_out_amount numeric(38,18) not null default 0 check (pending_out_amount >= 0),
  pending_in_amount numeric(38,18) not null default 0 check (pending_in_amount >= 0),
  created_at timestamptz not null default now(),
  -- A partner account belongs to a partner; a system account has a code instead.
  check ((kind = 'PARTNER' and partner_id is not null and system_code is null)
      or (kind = 'SYSTEM' and partner_id is null and system_code is not null)),
  -- The last line of defence against overdraft: available = posted - pending out >= 0.
  check (kind = 'SYSTEM' or posted_amount - pending_out_amount >= 0),
  unique (id, currency)
);
create unique index account_partner_currency_uq on account(partner_id, currency) where kind = 'PARTNER';
create unique index account_system_code_currency_uq on account(system_code, currency) where kind = 'SYSTEM';
create unique index account_iban_uq on account(iban) where iban is not null;

-- The house's side of every movement, one account per code and currency.
insert into account (id, kind, system_code, currency)
select gen_random_uuid(), 'SYSTEM', code, currency
  from unnest(array['EXTERNAL_DEPOSITS', 'FEE_INCOME', 'EXCHANGE_DESK', 'CRYPTO_WITHDRAWALS', 'SEPA_CLEARING']) as code,
       unnest(array['eur', 'btc', 'doge', 'eth', 'ltc', 'pol', 'usdc']) as currency;

create table ledger_transfer (
  id uuid primary key,
  kind text not null check (kind in ('DEPOSIT', 'EXCHANGE', 'CRYPTO_WITHDRAWAL', 'SEPA_TRANSFER')),
  state text not null check (state in ('PENDING', 'POSTED', 'VOIDED')),
  created_at timestamptz not null default now(),
  posted_at timestamptz,
  voided_at timestamptz,
  check ((state = 'POSTED') = (posted_at is not null)),
  check ((state = 'VOIDED') = (voided_at is not null))
);

create table ledger_posting (
  id uuid primary key,
  transfer_id uuid not null references ledger_transfer(id) deferrable initially deferred,
  account_id uuid not null,
  currency text not null,
  amount numeric(38,18) not null check (amount <> 0),
  created_at timestamptz not null default now(),
  -- The posting's currency is its account's currency.
  foreign key (account_id, currency) references account(id, currency) deferrable initially deferred
);
create index ledger_posting_transfer_idx on ledger_posting(transfer_id);
create index ledger_posting_account_idx on ledger_posting(account_id);

-- Every transfer balances per currency, checked at commit so multi-row inserts can finish first.
create function ledger_transfer_must_balance() returns trigger language plpgsql as $$
declare
  unbalanced record;
begin
  select currency, sum(amount) as total into unbalanced
    from ledger_posting where transfer_id = new.transfer_id
    group by currency having sum(amount) <> 0 limit 1;
  if found then
    raise exception 'ledger transfer % does not balance in %: %', new.transfer_id, unbalanced.currency, unbalanced.total;
  end if;
  return null;
end $$;
create constraint trigger ledger_posting_balanced
  after insert or update on ledger_posting
  deferrable initially deferred
  for each row execute function ledger_transfer_must_balance();

-- Postings are history: never rewritten.
create function ledger_posting_immutable() returns trigger language plpgsql as $$
begin
  raise exception 'ledger postings are immutable';
end $$;
create trigger ledger_posting_no_change before update or delete on ledger_posting
  for each row execute function ledger_posting_immutable();

create table network_config (
  currency text not null,
  network text not null,
  mainnet boolean not null,
  fee_withdrawal numeric(38,18) not null check (fee_withdrawal >= 0),
  min_withdrawal numeric(38,18) not null check (min_withdrawal > 0),
  min_deposit numeric(38,18) not null check (min_deposit > 0),
  primary key (currency, network)
);
insert into network_config (currency, network, mainnet, fee_withdrawal, min_withdrawal, min_deposit) values
  ('btc',  'bitcoin',  true, 0.00005, 0.0001, 0.00005),
  ('doge', 'dogecoin', true, 2,       10,     5),
  ('eth',  'ethereum', true, 0.0005,  0.001,  0.0005),
  ('ltc',  'litecoin', true, 0.0001,  0.001,  0.0005),
  ('pol',  'polygon',  true, 0.1,     1,      0.5),
  ('usdc', 'ethereum', true, 3,       10,     5),
  ('usdc', 'polygon',  true, 0.1,     1,      1);

create table rate_lock (
  id uuid primary key,
  partner_id uuid not null references partner(id) deferrable initially deferred,
  rates jsonb not null,
  fee_percentage numeric(7,4) not null,
  created_at timestamptz not null,
  valid_until timestamptz not null,
  used_at timestamptz,
  check (valid_until > created_at)
);
create index rate_lock_partner_idx on rate_lock(partner_id, created_at);

create table deposit (
  id uuid primary key references ledger_transfer(id) deferrable initially deferred,
  partner_id uuid not null references partner(id) deferrable initially deferred,
  account_id uuid not null references account(id) deferrable initially deferred,
  currency text not null,
  amount numeric(38,18) not null check (amount > 0),
  type text not null check (type in ('sepaDeposit', 'fiatDeposit', 'cryptoDeposit')),
  created_at timestamptz not null default now()
);
create index deposit_partner_created_idx on deposit(partner_id, created_at);

create table exchange (
  id uuid primary key,
  partner_id uuid not null references partner(id) deferrable initially deferred,
  -- One lock buys one exchange: the database refuses a second, whatever the race.
  lock_id uuid not null unique references rate_lock(id) deferrable initially deferred,
  currency_from text not null,
  currency_to text not null check (currency_to <> currency_from),
  amount_from numeric(38,18) not null check (amount_from > 0),
  amount_to numeric(38,18) not null check (amount_to >= 0),
  fee_amount numeric(38,18) not null check (fee_amount >= 0),
  status text not null check (status in ('IN_PROGRESS', 'IN_PROGRESS_TR_DATA', 'SUCCESSFUL', 'UNSUCCESSFUL')),
  created_at timestamptz not null default now()
);
create index exchange_partner_created_idx on exchange(partner_id, created_at);

create table crypto_withdrawal (
  id uuid primary key,
  partner_id uuid not null references partner(id) deferrable initially deferred,
  user_id uuid references partner_user(id) deferrable initially deferred,
  currency text not null,
  network text not null,
  amount numeric(38,18) not null check (amount > 0),
  fee numeric(38,18) not null check (fee >= 0),
  destination text not null,
  memo text,
  wallet_type text not null check (wallet_type in ('CUSTODIAL', 'NON_CUSTODIAL', 'OTHER')),
  receiver_type text not null check (receiver_type in ('NATURAL', 'LEGAL')),
  beneficiary_name text not null,
  status text not null check (status in ('IN_PROGRESS', 'IN_PROGRESS_TR_DATA', 'SUCCESSFUL', 'UNSUCCESSFUL')),
  stage text not null,
  amount_eur numeric(38,18) not null,
  travel_rule jsonb,
  transaction_hash text,
  failure_reason text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index crypto_withdrawal_partner_created_idx on crypto_withdrawal(partner_id, created_at);

create table sepa_transfer (
  id uuid primary key,
  partner_id uuid not null references partner(id) deferrable initially deferred,
  currency text not null check (currency = 'eur'),
  amount numeric(38,18) not null check (amount > 0),
  receiver_type text not null check (receiver_type in ('NATURAL', 'LEGAL')),
  receiver_first_name text,
  receiver_last_name text,
  company_name text,
  destination_iban text not null,
  transfer_title text not null,
  status text not null check (status in ('IN_PROGRESS', 'IN_PROGRESS_TR_DATA', 'SUCCESSFUL', 'UNSUCCESSFUL')),
  stage text not null,
  message_id text,
  bank_reference text,
  failure_reason text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index sepa_transfer_partner_created_idx on sepa_transfer(partner_id, created_at);

create table idempotency_record (
  id uuid primary key,
  partner_id uuid not null references partner(id) deferrable initially deferred,
  idempotency_key text not null check (length(idempotency_key) between 1 and 255),
  operation text not null,
  request_hash text not null,
  resource_id uuid not null,
  response_status integer,
  response_body jsonb,
  created_at timestamptz not null default now(),
  completed_at timestamptz,
  unique (partner_id, idempotency_key)
);

create table reconciliation_report (
  id uuid primary key,
  created_at timestamptz not null default now(),
  ok boolean not null,
  report jsonb not null
);
create index reconciliation_report_created_idx on reconciliation_report(created_at);
`);
  }
}
