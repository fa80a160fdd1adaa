import { Migration } from '@mikro-orm/migrations';

/**
 * The whole schema, by hand, so the database itself enforces what must never break: balanced transfers, no partner
 * balance below zero, one exchange per lock, postings and audit records never rewritten, money that left never refunded.
 * Most foreign keys are deferred: MikroORM orders a flush's inserts only by relations it knows. Privileges: db/privileges.sql.
 *
 * Errors the service maps carry their own SQLSTATE: PP001 a void refused after hand-off, PP002
 * insufficient funds, PP003 a transfer given up on, PP009 a broken invariant (a bug upstream),
 * PP010 a refusal the partner is told (its DETAIL is the domain's kind: `invalid-exchange-lock`,
 * `limit-exceeded`, …), PP020 an append-only table, PP021 a manual credit, PP022 an incoming
 * credit, PP030 an address book entry.
 */
export class Migration20261201000000_baseline extends Migration {
  override async up(): Promise<void> {
    this.partners();
    this.ledger();
    this.operations();
    this.withdrawalAddressBook();
    this.webhooks();
    this.operators();
    this.bank();
    this.chain();
    this.deposits();
    this.reconciliation();
    this.initialRows();
  }

  private partners(): void {
    this.addSql(`
-- Each partner's deposit-address index: never reused, within BIP32's non-hardened range (what a public key derives).
create sequence partner_deposit_index_seq as integer minvalue 0 maxvalue 2147483647 start with 0 no cycle;
create table partner (
  id uuid primary key,
  name text not null check (length(name) between 1 and 200),
  fee_percentage numeric(7,4) not null check (fee_percentage >= 0 and fee_percentage < 100),
  created_at timestamptz not null default now(),
  deposit_index integer not null default nextval('partner_deposit_index_seq') check (deposit_index between 0 and 2147483647)
);
alter sequence partner_deposit_index_seq owned by partner.deposit_index;
create unique index partner_deposit_index_uq on partner(deposit_index);

create table api_key (
  id uuid primary key,
  partner_id uuid not null references partner(id) deferrable initially deferred,
  key_hash text not null unique,
  key_prefix text not null,
  created_at timestamptz not null default now(),
  revoked_at timestamptz,
  -- read: GET and HEAD only; payments: everything.
  scope text not null default 'payments' check (scope in ('read', 'payments')),
  expires_at timestamptz,
  -- Written at most once a minute per key, and not announced (below).
  last_used_at timestamptz,
  -- The key a rotation issued in its place: rotated once, so a lost rotation output leaves no second live key.
  replaced_by uuid references api_key(id) deferrable initially deferred
);
create index api_key_partner_idx on api_key(partner_id);

-- For the API's caches of known and unknown key hashes: a change that can end a key announces its old hash ('*' after a
-- TRUNCATE), a hash that becomes an active key's 'created:<hash>' (db/listeners/api-key-changes.ts).
create function api_key_changed() returns trigger language plpgsql as $$
begin
  -- Delivered to the listeners when the transaction commits, never before (nor after a rollback).
  if tg_op = 'TRUNCATE' then
    perform pg_notify('api_key_changed', '*');
    return null;
  end if;
  if tg_op in ('UPDATE', 'DELETE') then
    perform pg_notify('api_key_changed', old.key_hash);
  end if;
  if tg_op in ('INSERT', 'UPDATE') and new.revoked_at is null then
    perform pg_notify('api_key_changed', 'created:' || new.key_hash);
  end if;
  return null;
end $$;
create trigger api_key_created after insert on api_key
  for each row execute function api_key_changed();
-- Only a change of what authentication reads: last_used_at would otherwise empty every cache each minute.
create trigger api_key_changed after update of revoked_at, key_hash, partner_id, scope, expires_at on api_key
  for each row when (
    old.revoked_at is distinct from new.revoked_at
    or old.key_hash is distinct from new.key_hash
    or old.partner_id is distinct from new.partner_id
    or old.scope is distinct from new.scope
    or old.expires_at is distinct from new.expires_at)
  execute function api_key_changed();
-- A WHEN clause cannot read NEW in a DELETE trigger: deletion gets its own.
create trigger api_key_deleted after delete on api_key
  for each row execute function api_key_changed();
create trigger api_key_truncated after truncate on api_key
  for each statement execute function api_key_changed();

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

-- Operators' limits on what a leaked key can do (no row: the defaults); its own table, as reservations lock the row.
create table partner_policy (
  partner_id uuid primary key references partner(id),
  allowlist_required boolean not null default false,
  -- Null: the deployment's WITHDRAWAL_ADDRESS_COOLING_OFF_MINUTES.
  cooling_off_minutes integer check (cooling_off_minutes between 0 and 10080),
  -- Over crypto withdrawals and SEPA transfers, rolling 24 hours; null: none.
  daily_limit_eur numeric(38,2) check (daily_limit_eur >= 0),
  updated_at timestamptz not null default now()
);
`);
  }

  /**
   * Partner accounts cache their balance, updated with the overdraft check in one UPDATE; system accounts cache none, so
   * no two operations queue on one row. ledger_open and ledger_complete are idempotent on the transfer id and lock partner
   * accounts in id order, so concurrent transfers never deadlock.
   */
  private ledger(): void {
    this.addSql(`
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
  constraint account_system_keeps_no_cached_balance
    check (kind = 'PARTNER' or (posted_amount = 0 and pending_out_amount = 0 and pending_in_amount = 0)),
  unique (id, currency)
);
create unique index account_partner_currency_uq on account(partner_id, currency) where kind = 'PARTNER';
create unique index account_system_code_currency_uq on account(system_code, currency) where kind = 'SYSTEM';
create unique index account_iban_uq on account(iban) where iban is not null;
-- One deposit address belongs to one account per currency: also how the deposit watcher asks "is this ours?".
create unique index account_currency_wallet_address_uq on account(currency, wallet_address) where wallet_address is not null;
-- A batch of blocks looks up every recipient it saw in one query, in lower case.
create index account_wallet_address_lower_idx on account (lower(wallet_address)) where kind = 'PARTNER' and wallet_address is not null;

create table ledger_transfer (
  id uuid primary key,
  kind text not null
    check (kind in ('DEPOSIT', 'EXCHANGE', 'CRYPTO_WITHDRAWAL', 'SEPA_TRANSFER', 'CRYPTO_WITHDRAWAL_FEE', 'SEPA_UNMATCHED', 'SEPA_RETURN')),
  state text not null check (state in ('PENDING', 'POSTED', 'VOIDED')),
  created_at timestamptz not null default now(),
  posted_at timestamptz,
  voided_at timestamptz,
  check ((state = 'POSTED') = (posted_at is not null)),
  check ((state = 'VOIDED') = (voided_at is not null))
);
-- Reconciliation looks at the holds: few rows among many transfers.
create index ledger_transfer_pending_idx on ledger_transfer(created_at) where state = 'PENDING';

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

-- Every transfer balances per currency, checked per statement: a transfer's postings are inserted in one (ledger_open).
create function ledger_postings_must_balance() returns trigger language plpgsql as $$
declare
  unbalanced record;
begin
  select p.transfer_id, p.currency, sum(p.amount) as total into unbalanced
    from ledger_posting p
   where p.transfer_id in (select distinct transfer_id from inserted)
   group by p.transfer_id, p.currency having sum(p.amount) <> 0 limit 1;
  if found then
    raise exception 'ledger transfer % does not balance in %: %', unbalanced.transfer_id, unbalanced.currency, unbalanced.total;
  end if;
  return null;
end $$;
create trigger ledger_postings_balanced after insert on ledger_posting
  referencing new table as inserted
  for each statement execute function ledger_postings_must_balance();

-- Postings are history: never rewritten.
create function ledger_posting_immutable() returns trigger language plpgsql as $$
begin
  raise exception 'ledger postings are immutable';
end $$;
create trigger ledger_posting_no_change before update or delete on ledger_posting
  for each row execute function ledger_posting_immutable();

-- Once handed off (before the chain or bank is called) the money may have left: only their definite rejection
-- (external_rejection) may void the transfer, whatever reset, retry, operator command or bug tries.
create function ledger_transfer_void_guard() returns trigger language plpgsql as $$
begin
  -- Wait for a hand-off being committed right now, then look at what it wrote.
  perform 1 from crypto_withdrawal where id = new.id for share;
  perform 1 from sepa_transfer where id = new.id for share;
  if exists (select 1 from crypto_withdrawal w
              where w.id = new.id and (w.handed_off_at is not null or w.transaction_hash is not null)
                and w.external_rejection is null)
     or exists (select 1 from sepa_transfer s
                 where s.id = new.id and (s.handed_off_at is not null or s.bank_reference is not null)
                   and s.external_rejection is null) then
    raise exception 'ledger transfer % belongs to an operation handed to the chain or bank: only its definite rejection may void it', new.id
      using errcode = 'PP001';
  end if;
  return new;
end $$;
create trigger ledger_transfer_void_guard before update of state on ledger_transfer
  for each row when (new.state = 'VOIDED' and old.state <> 'VOIDED')
  execute function ledger_transfer_void_guard();

-- A closed transfer (POSTED or VOIDED) is final for every role, the owner included.
create function ledger_transfer_closed_is_final() returns trigger language plpgsql as $$
begin
  raise exception 'invariant violated: ledger transfer % is %, and a closed transfer is never changed or deleted', old.id, old.state
    using errcode = 'PP009';
end $$;
create trigger ledger_transfer_closed_is_final before update or delete on ledger_transfer
  for each row when (old.state <> 'PENDING')
  execute function ledger_transfer_closed_is_final();

-- A voided, empty transfer under a given-up operation's id, so a late reservation fails on the primary key: 'TOMBSTONED',
-- or 'MOVED' when a transfer with postings committed first (a concurrent reservation of the id is waited for).
create function ledger_tombstone(p_id uuid, p_kind text) returns text language plpgsql as $$
begin
  insert into ledger_transfer (id, kind, state, created_at, voided_at)
  values (p_id, p_kind, 'VOIDED', now(), now())
  on conflict (id) do nothing;
  if found then
    return 'TOMBSTONED';
  end if;
  if exists (select 1 from ledger_posting where transfer_id = p_id) then
    return 'MOVED';
  end if;
  return 'TOMBSTONED';
end $$;

-- A transfer, PENDING or POSTED, with its postings: each names its account by id (a), system code (s) or partner (p) and currency (c).
create function ledger_open(p_id uuid, p_kind text, p_state text, p_postings jsonb, p_now timestamptz)
returns text language plpgsql as $$
declare
  v_existing record;
  v_accounts uuid[];
  v_amounts numeric[];
  v_currencies text[];
  v_partner boolean[];
  v_unbalanced record;
begin
  if p_state not in ('PENDING', 'POSTED') then
    raise exception 'invariant violated: a transfer opens PENDING or POSTED, not %', p_state using errcode = 'PP009';
  end if;
  insert into ledger_transfer (id, kind, state, created_at, posted_at)
  values (p_id, p_kind, p_state, p_now, case when p_state = 'POSTED' then p_now end)
  on conflict (id) do nothing;
  if not found then
    -- A re-run, or a tombstone (callers look for their record first, so a voided one here was given up on).
    select kind, state into v_existing from ledger_transfer where id = p_id;
    if v_existing.kind <> p_kind then
      raise exception 'invariant violated: transfer % re-run as % (it is %)', p_id, p_kind, v_existing.kind using errcode = 'PP009';
    end if;
    if v_existing.state = 'VOIDED' then
      raise exception 'transfer % was given up on', p_id using errcode = 'PP003';
    end if;
    return 'EXISTS';
  end if;

  -- The postings' accounts, resolved and sorted by id: the order every transfer locks them in.
  select array_agg(acc.id order by acc.id), array_agg(x.m order by acc.id),
         array_agg(acc.currency order by acc.id), array_agg(acc.kind = 'PARTNER' order by acc.id)
    into v_accounts, v_amounts, v_currencies, v_partner
    from jsonb_to_recordset(p_postings) as x(a uuid, s text, p uuid, c text, m numeric)
    join account acc on acc.id = coalesce(
      x.a,
      (select id from account where kind = 'SYSTEM' and system_code = x.s and currency = x.c),
      (select id from account where kind = 'PARTNER' and partner_id = x.p and currency = x.c));
  if coalesce(cardinality(v_accounts), 0) < 2 or cardinality(v_accounts) <> jsonb_array_length(p_postings) then
    raise exception 'invariant violated: transfer % has at least two postings, each on an account that exists', p_id using errcode = 'PP009';
  end if;
  -- Balances hold 18 decimals: a finer amount would be checked unrounded and stored rounded.
  if exists (select 1 from unnest(v_amounts) as amount where scale(amount) > 18) then
    raise exception 'invariant violated: transfer % has an amount with more than 18 decimals', p_id using errcode = 'PP009';
  end if;
  if (select count(distinct account_id) from unnest(v_accounts) as account_id) <> cardinality(v_accounts) then
    raise exception 'invariant violated: transfer % touches each account once', p_id using errcode = 'PP009';
  end if;
  -- Said here with the amounts; the balance trigger checks it again on insert.
  select currency, sum(amount) as total into v_unbalanced
    from unnest(v_currencies, v_amounts) as x(currency, amount) group by currency having sum(amount) <> 0 limit 1;
  if found then
    raise exception 'invariant violated: transfer % balances in % (off by %)', p_id, v_unbalanced.currency, v_unbalanced.total
      using errcode = 'PP009';
  end if;

  insert into ledger_posting (id, transfer_id, account_id, currency, amount, created_at)
  select gen_random_uuid(), p_id, x.account_id, x.currency, x.amount, p_now
    from unnest(v_accounts, v_currencies, v_amounts) as x(account_id, currency, amount);

  -- Partner accounts in id order; the overdraft check is in the UPDATE, re-checked on the newest row (READ COMMITTED).
  for i in 1 .. cardinality(v_accounts) loop
    continue when not v_partner[i];
    if v_amounts[i] > 0 then
      if p_state = 'POSTED' then
        update account set posted_amount = posted_amount + v_amounts[i] where id = v_accounts[i];
      else
        update account set pending_in_amount = pending_in_amount + v_amounts[i] where id = v_accounts[i];
      end if;
    else
      if p_state = 'POSTED' then
        update account set posted_amount = posted_amount + v_amounts[i]
         where id = v_accounts[i] and posted_amount - pending_out_amount + v_amounts[i] >= 0;
      else
        update account set pending_out_amount = pending_out_amount - v_amounts[i]
         where id = v_accounts[i] and posted_amount - pending_out_amount + v_amounts[i] >= 0;
      end if;
      if not found then
        raise exception 'not enough % available', v_currencies[i] using errcode = 'PP002';
      end if;
    end if;
  end loop;
  return 'CREATED';
end $$;

-- Posts or voids a hold.
create function ledger_complete(p_id uuid, p_target text, p_now timestamptz)
returns text language plpgsql as $$
declare
  v_state text;
  v_posting record;
begin
  if p_target not in ('POSTED', 'VOIDED') then
    raise exception 'invariant violated: a hold becomes POSTED or VOIDED, not %', p_target using errcode = 'PP009';
  end if;
  -- The row lock orders concurrent completions: the second finds the state the first left.
  update ledger_transfer
     set state = p_target,
         posted_at = case when p_target = 'POSTED' then p_now end,
         voided_at = case when p_target = 'VOIDED' then p_now end
   where id = p_id and state = 'PENDING';
  if not found then
    select state into v_state from ledger_transfer where id = p_id;
    if v_state is null then
      raise exception 'invariant violated: ledger transfer % exists', p_id using errcode = 'PP009';
    end if;
    if v_state = p_target then
      return 'UNCHANGED';
    end if;
    -- A settled transfer cannot be released, nor a released one settled: a bug upstream.
    raise exception 'invariant violated: transfer % is %, cannot become %', p_id, v_state, p_target using errcode = 'PP009';
  end if;
  for v_posting in
    select p.account_id, p.amount
      from ledger_posting p join account a on a.id = p.account_id
     where p.transfer_id = p_id and a.kind = 'PARTNER'
     order by p.account_id
  loop
    update account
       set pending_out_amount = pending_out_amount + least(v_posting.amount, 0),
           pending_in_amount = pending_in_amount - greatest(v_posting.amount, 0),
           posted_amount = posted_amount + case when p_target = 'POSTED' then v_posting.amount else 0 end
     where id = v_posting.account_id;
  end loop;
  return 'CHANGED';
end $$;

create view system_account_balance as
select a.id as account_id, a.system_code, a.currency,
       coalesce(sum(p.amount) filter (where t.state = 'POSTED'), 0) as posted_amount,
       coalesce(-sum(p.amount) filter (where t.state = 'PENDING' and p.amount < 0), 0) as pending_out_amount,
       coalesce(sum(p.amount) filter (where t.state = 'PENDING' and p.amount > 0), 0) as pending_in_amount
  from account a
  left join ledger_posting p on p.account_id = a.id
  left join ledger_transfer t on t.id = p.transfer_id
 where a.kind = 'SYSTEM'
 group by a.id, a.system_code, a.currency;
`);
  }

  /** Each table of partner movements has an index in the history's order, so a page is a merge of short index scans. */
  private operations(): void {
    this.addSql(`
create table network_config (
  currency text not null,
  network text not null,
  mainnet boolean not null,
  fee_withdrawal numeric(38,18) not null check (fee_withdrawal >= 0),
  min_withdrawal numeric(38,18) not null check (min_withdrawal > 0),
  min_deposit numeric(38,18) not null check (min_deposit > 0),
  primary key (currency, network)
);

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

-- Every credit to a partner (on chain, by SEPA, by an operator); final when written.
create table deposit (
  id uuid primary key references ledger_transfer(id) deferrable initially deferred,
  partner_id uuid not null references partner(id) deferrable initially deferred,
  account_id uuid not null references account(id) deferrable initially deferred,
  currency text not null,
  amount numeric(38,18) not null check (amount > 0),
  type text not null check (type in ('sepaDeposit', 'fiatDeposit', 'cryptoDeposit')),
  created_at timestamptz not null default now()
);
create index deposit_partner_history_idx on deposit (partner_id, created_at desc, id desc);

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
create index exchange_partner_history_idx on exchange (partner_id, created_at desc, id desc);

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
  updated_at timestamptz not null default now(),
  -- Set before the chain is called (ledger_transfer_void_guard).
  handed_off_at timestamptz,
  -- The chain's definite answer that the money did not leave.
  external_rejection text,
  cancel_requested_at timestamptz,
  -- The transaction failed on chain (an EVM revert): the network kept its fee, and so do we.
  failed_on_chain_at timestamptz
);
create index crypto_withdrawal_partner_history_idx on crypto_withdrawal (partner_id, created_at desc, id desc);

-- A network fee kept from a withdrawal that failed on chain (its CRYPTO_WITHDRAWAL_FEE transfer's id), at most one each.
create table crypto_withdrawal_kept_fee (
  id uuid primary key references ledger_transfer(id) deferrable initially deferred,
  withdrawal_id uuid not null unique references crypto_withdrawal(id) deferrable initially deferred,
  partner_id uuid not null references partner(id) deferrable initially deferred,
  currency text not null,
  amount numeric(38,18) not null check (amount > 0),
  created_at timestamptz not null default now()
);
create index crypto_withdrawal_kept_fee_history_idx on crypto_withdrawal_kept_fee (partner_id, created_at desc, id desc);

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
  updated_at timestamptz not null default now(),
  -- Set before the bank is called (ledger_transfer_void_guard).
  handed_off_at timestamptz,
  -- The bank's definite answer that the money did not leave.
  external_rejection text,
  cancel_requested_at timestamptz
);
create index sepa_transfer_partner_history_idx on sepa_transfer (partner_id, created_at desc, id desc);

-- The rolling 24-hour sums (the daily EUR limit, summed under the policy row's lock, and the travel-rule threshold per
-- destination), each one index-only range scan without UNSUCCESSFUL operations.
create index crypto_withdrawal_daily_sum_idx on crypto_withdrawal (partner_id, created_at) include (amount_eur)
  where status <> 'UNSUCCESSFUL';
create index sepa_transfer_daily_sum_idx on sepa_transfer (partner_id, created_at) include (amount)
  where status <> 'UNSUCCESSFUL';
create index crypto_withdrawal_destination_sum_idx on crypto_withdrawal (partner_id, lower(destination), created_at)
  include (amount_eur) where status <> 'UNSUCCESSFUL';

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

-- What the API accepted, written before the workflow starts with only the id: money moves from this row, never from a
-- workflow's input. Workflows refused for lack of one are kept for reconciliation and operators.
create table accepted_operation (
  id uuid primary key,
  kind text not null check (kind in ('EXCHANGE', 'SEPA_TRANSFER', 'CRYPTO_WITHDRAWAL')),
  partner_id uuid not null references partner (id),
  workflow_id text not null unique check (length(workflow_id) <= 200),
  request jsonb not null check (pg_column_size(request) <= 65536),
  accepted_at timestamptz not null default now()
);
create table refused_operation (
  id bigint generated always as identity primary key,
  workflow_id text not null check (length(workflow_id) <= 1000),
  run_id text not null check (length(run_id) <= 100),
  workflow_type text not null check (length(workflow_type) <= 200),
  operation_id text check (length(operation_id) <= 200),
  reason text not null check (length(reason) <= 1000),
  refused_at timestamptz not null default now(),
  unique (workflow_id, run_id)
);
create index refused_operation_refused_at_idx on refused_operation (refused_at);

-- An outgoing payment's reservation in one round trip, in the order the partner is told: the operation's advisory lock;
-- the accepted request (else UNKNOWN); an earlier run's record (EXISTS); the policy row, locked while it has a daily limit
-- so reservations take turns before the hold locks the account; for SEPA an ACTIVE EUR account; for a required allowlist
-- an active entry for the address_key, FOR SHARE against a concurrent deletion; the hold (PP003, PP002); the daily limit,
-- exactly the limit passing; the record. Refusals raise PP010, the kind as DETAIL. Each statement sees what an earlier
-- attempt, or the reservation it waited for, committed (VOLATILE, READ COMMITTED).
create function reserve_outgoing_payment(
  p_table text, p_id uuid, p_now timestamptz,
  out outcome text, out reason text, out existing_status text, out existing_stage text, out held_amount text, out held_fee text
) language plpgsql as $$
declare
  v_kind text := case p_table when 'crypto_withdrawal' then 'CRYPTO_WITHDRAWAL' when 'sepa_transfer' then 'SEPA_TRANSFER' end;
  v_accepted accepted_operation;
  v_request jsonb;
  v_currency text := 'eur';
  v_amount numeric;
  v_fee numeric := 0;
  v_clearing text := 'SEPA_CLEARING';
  v_postings jsonb;
  v_policy partner_policy;
  v_entry record;
  v_book text;
  v_used numeric;
begin
  if v_kind is null then
    raise exception 'invariant violated: % is no outgoing payment', p_table using errcode = 'PP009';
  end if;
  perform set_config('lock_timeout', '20s', true);
  perform pg_advisory_xact_lock(hashtextextended(p_id::text, 0));

  select * into v_accepted from accepted_operation where id = p_id;
  if not found or v_accepted.kind <> v_kind then
    outcome := 'UNKNOWN';
    reason := case when found then format('operation %s is a %s, not a %s', p_id, v_accepted.kind, v_kind)
                   else format('the API accepted no operation %s', p_id) end;
    return;
  end if;
  v_request := v_accepted.request;
  v_amount := (v_request->>'amount')::numeric;
  if p_table = 'crypto_withdrawal' then
    v_currency := v_request->>'currency';
    v_fee := (v_request->>'fee')::numeric;
    v_clearing := 'CRYPTO_WITHDRAWALS';
    select r.status, r.stage into existing_status, existing_stage from crypto_withdrawal r where r.id = p_id;
  else
    select r.status, r.stage into existing_status, existing_stage from sepa_transfer r where r.id = p_id;
  end if;
  -- What is held, as accepted: for the workflow's step summaries.
  held_amount := v_amount::text;
  held_fee := v_fee::text;
  if existing_status is not null then
    outcome := 'EXISTS';
    return;
  end if;

  select * into v_policy from partner_policy where partner_id = v_accepted.partner_id;
  if v_policy.daily_limit_eur is not null then
    select * into v_policy from partner_policy where partner_id = v_accepted.partner_id for update;
  end if;

  if p_table = 'sepa_transfer' and not exists (
       select 1 from account
        where kind = 'PARTNER' and partner_id = v_accepted.partner_id and currency = 'eur' and fiat_status = 'ACTIVE') then
    raise exception 'the partner has no active EUR account' using errcode = 'PP010', detail = 'partner-not-found';
  end if;
  if p_table = 'crypto_withdrawal' and v_policy.allowlist_required then
    v_book := format('the withdrawal-address book (%s on %s)', v_currency, v_request->>'network');
    select active_from <= p_now as active, active_from into v_entry from withdrawal_address
     where partner_id = v_accepted.partner_id and currency = v_currency and network = v_request->>'network'
       and address_key = v_request->>'address_key' and deleted_at is null
       for share;
    if not found then
      raise exception 'walletAddress is not an ACTIVE entry of %, and this partner''s policy requires one', v_book
        using errcode = 'PP010', detail = 'address-not-allowlisted';
    elsif not v_entry.active then
      raise exception 'walletAddress is in % but PENDING until % (its cooling-off)', v_book,
        to_char(v_entry.active_from at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
        using errcode = 'PP010', detail = 'address-not-allowlisted';
    end if;
  end if;

  v_postings := jsonb_build_array(
    jsonb_build_object('p', v_accepted.partner_id, 'c', v_currency, 'm', (-(v_amount + v_fee))::text),
    jsonb_build_object('s', v_clearing, 'c', v_currency, 'm', v_amount::text));
  if v_fee <> 0 then
    v_postings := v_postings || jsonb_build_array(jsonb_build_object('s', 'FEE_INCOME', 'c', v_currency, 'm', v_fee::text));
  end if;
  perform ledger_open(p_id, v_kind, 'PENDING', v_postings, p_now);

  if v_policy.daily_limit_eur is not null then
    -- Withdrawals (at their accepted rates, fee excluded) and SEPA transfers of the last 24 hours, not UNSUCCESSFUL.
    select coalesce((select sum(amount_eur) from crypto_withdrawal
                      where partner_id = v_accepted.partner_id and created_at > p_now - interval '24 hours'
                        and status <> 'UNSUCCESSFUL'), 0)
         + coalesce((select sum(amount) from sepa_transfer
                      where partner_id = v_accepted.partner_id and created_at > p_now - interval '24 hours'
                        and status <> 'UNSUCCESSFUL'), 0)
      into v_used;
    if v_used + coalesce((v_request->>'amount_eur')::numeric, v_amount) > v_policy.daily_limit_eur then
      -- Rounded down: never more than is really left.
      raise exception '% EUR left in the last 24 h', trunc(greatest(0, v_policy.daily_limit_eur - v_used), 2)
        using errcode = 'PP010', detail = 'limit-exceeded';
    end if;
  end if;

  -- Only the columns a partner's request sets; the state is the reservation's.
  v_request := jsonb_build_object('id', p_id, 'partner_id', v_accepted.partner_id, 'currency', v_currency,
                                  'status', 'IN_PROGRESS', 'stage', 'RESERVED', 'created_at', p_now, 'updated_at', p_now)
            || (select coalesce(jsonb_object_agg(key, value), '{}') from jsonb_each(v_request)
                 where key in ('user_id', 'network', 'amount', 'fee', 'destination', 'memo', 'wallet_type', 'receiver_type',
                               'beneficiary_name', 'amount_eur', 'receiver_first_name', 'receiver_last_name', 'company_name',
                               'destination_iban', 'transfer_title'));
  if p_table = 'crypto_withdrawal' then
    insert into crypto_withdrawal select * from jsonb_populate_record(null::crypto_withdrawal, v_request);
  else
    insert into sepa_transfer select * from jsonb_populate_record(null::sepa_transfer, v_request);
  end if;
  outcome := 'RESERVED';
end $$;

-- An exchange in one round trip after the caller's quote, in the order the partner is told: the operation's lock; the
-- accepted request (else UNKNOWN); an earlier run's exchange (EXISTS); given up on (PP003); the rate lock unknown, used or
-- expired at the request's time to the millisecond, or a p_quote_problem (PP010, the kind as DETAIL); then the lock used
-- at the quoted terms, the transfer posted and the exchange stored.
create function execute_exchange(
  p_id uuid, p_rates jsonb, p_fee_percentage numeric,
  p_quote_problem text, p_postings jsonb, p_exchange jsonb, p_now timestamptz,
  out outcome text, out reason text
) language plpgsql as $$
declare
  v_accepted accepted_operation;
  v_lock rate_lock;
begin
  perform set_config('lock_timeout', '20s', true);
  perform pg_advisory_xact_lock(hashtextextended(p_id::text, 0));

  select * into v_accepted from accepted_operation where id = p_id;
  if not found or v_accepted.kind <> 'EXCHANGE' then
    outcome := 'UNKNOWN';
    reason := case when found then format('operation %s is a %s, not a EXCHANGE', p_id, v_accepted.kind)
                   else format('the API accepted no operation %s', p_id) end;
    return;
  end if;

  if exists (select 1 from exchange where id = p_id) then
    outcome := 'EXISTS';
    return;
  end if;
  if exists (select 1 from ledger_transfer where id = p_id and state = 'VOIDED') then
    raise exception 'transfer % was given up on', p_id using errcode = 'PP003';
  end if;

  -- Any text is a lockId to the API (the spec's P432 for one that names no lock).
  if v_accepted.request->>'lock_id' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    select * into v_lock from rate_lock where id = (v_accepted.request->>'lock_id')::uuid for update;
  end if;
  if v_lock.id is null or v_lock.partner_id <> v_accepted.partner_id then
    raise exception 'the lock does not exist' using errcode = 'PP010', detail = 'invalid-exchange-lock';
  end if;
  if v_lock.used_at is not null then
    raise exception 'the lock has already been used' using errcode = 'PP010', detail = 'invalid-exchange-lock';
  end if;
  if date_trunc('milliseconds', v_lock.valid_until) <= (v_accepted.request->>'requested_at')::timestamptz then
    raise exception 'the lock has expired' using errcode = 'PP010', detail = 'invalid-exchange-lock';
  end if;
  if p_quote_problem is not null then
    raise exception '%', p_quote_problem using errcode = 'PP010', detail = 'invalid-request';
  end if;

  if p_postings is null or v_lock.rates <> p_rates or v_lock.fee_percentage <> p_fee_percentage
     or (p_exchange->>'id')::uuid is distinct from p_id
     or (p_exchange->>'partner_id')::uuid is distinct from v_accepted.partner_id
     or (p_exchange->>'lock_id')::uuid is distinct from v_lock.id then
    raise exception 'invariant violated: exchange % was quoted on other terms than its lock''s', p_id using errcode = 'PP009';
  end if;
  update rate_lock set used_at = p_now where id = v_lock.id;
  perform ledger_open(p_id, 'EXCHANGE', 'POSTED', p_postings, p_now);
  insert into exchange select * from jsonb_populate_record(null::exchange, p_exchange);
  outcome := 'EXCHANGED';
end $$;
`);
  }

  /**
   * The partner's withdrawal-address book, matched by `address_key` (the form two spellings of an address share). An
   * entry only ever gets its `deleted_at`, once, so no deletion or earlier `active_from` can be forged.
   */
  private withdrawalAddressBook(): void {
    this.addSql(`
create table withdrawal_address (
  id uuid primary key,
  partner_id uuid not null references partner(id) deferrable initially deferred,
  currency text not null check (currency in ('btc', 'doge', 'eth', 'ltc', 'pol', 'usdc')),
  network text not null check (network in ('bitcoin', 'dogecoin', 'ethereum', 'litecoin', 'polygon')),
  address text not null check (length(address) between 1 and 128),
  address_key text not null check (length(address_key) between 1 and 128),
  label text not null check (length(label) between 1 and 100),
  active_from timestamptz not null,
  created_at timestamptz not null,
  deleted_at timestamptz,
  check (active_from >= created_at),
  check (deleted_at is null or deleted_at >= created_at)
);
-- One live entry per key; also the allowlist's lookup.
create unique index withdrawal_address_live_key_idx on withdrawal_address (partner_id, currency, network, address_key)
  where deleted_at is null;
-- The book as the partner reads it, newest first, and the count of its live entries.
create index withdrawal_address_partner_idx on withdrawal_address (partner_id, created_at desc, id desc) where deleted_at is null;

create function withdrawal_address_only_deleted() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' or old.deleted_at is not null or new.deleted_at is null
     or (new.id, new.partner_id, new.currency, new.network, new.address, new.address_key, new.label, new.active_from, new.created_at)
        is distinct from
        (old.id, old.partner_id, old.currency, old.network, old.address, old.address_key, old.label, old.active_from, old.created_at) then
    raise exception 'withdrawal_address: an entry is only ever deleted, once (% refused)', tg_op using errcode = 'PP030';
  end if;
  return new;
end $$;
create trigger withdrawal_address_only_deleted before update or delete on withdrawal_address
  for each row execute function withdrawal_address_only_deleted();
`);
  }

  /**
   * Webhooks through an outbox: triggers write the events in the transaction of the change, numbered per subject under
   * its row lock; partners without an endpoint get none. The dispatcher leases events with `claimed_until`.
   */
  private webhooks(): void {
    this.addSql(`
create table webhook_endpoint (
  partner_id uuid primary key references partner(id) deferrable initially deferred,
  url text not null check (length(url) between 1 and 2048 and url ~ '^https?://'),
  secret text not null check (secret ~ '^whsec_[A-Za-z0-9+/]{32,}={0,2}$'),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table webhook_event (
  id text primary key check (length(id) between 1 and 100),
  partner_id uuid not null references partner(id) deferrable initially deferred,
  operation_type text not null
    check (operation_type in ('crypto-withdrawal', 'sepa-transfer', 'exchange', 'crypto-deposit', 'deposit', 'withdrawal-address')),
  operation_id uuid not null,
  sequence integer not null check (sequence > 0),
  type text not null
    check (type in ('crypto_withdrawal.status_changed', 'sepa_transfer.status_changed', 'exchange.status_changed',
                    'deposit.pending', 'deposit.succeeded', 'deposit.failed',
                    'withdrawal_address.created', 'withdrawal_address.deleted')),
  payload jsonb not null,
  created_at timestamptz not null default now(),
  attempts integer not null default 0 check (attempts >= 0),
  next_attempt_at timestamptz not null default now(),
  claimed_until timestamptz,
  delivered_at timestamptz,
  given_up_at timestamptz,
  last_error text check (length(last_error) <= 1000),
  unique (operation_id, sequence),
  check (delivered_at is null or given_up_at is null)
);
-- What the dispatcher polls: only the open events, by due time.
create index webhook_event_due_idx on webhook_event (next_attempt_at) where delivered_at is null and given_up_at is null;
-- The delivery log, newest first.
create index webhook_event_partner_log_idx on webhook_event (partner_id, created_at desc, id desc);

create table webhook_delivery_attempt (
  id uuid primary key,
  event_id text not null references webhook_event(id) deferrable initially deferred,
  attempt integer not null check (attempt > 0),
  attempted_at timestamptz not null,
  http_status integer check (http_status between 100 and 599),
  error text check (length(error) <= 1000),
  duration_ms integer not null check (duration_ms >= 0)
);
create index webhook_delivery_attempt_event_idx on webhook_delivery_attempt (event_id, attempt);

-- The operations' events, named after their table.
create function webhook_event_on_status_change() returns trigger language plpgsql as $$
declare
  v_row jsonb := to_jsonb(new);
  v_operation_type text := replace(tg_table_name, '_', '-');
  v_event_type text := tg_table_name || '.status_changed';
  v_event_id text := 'evt_' || replace(gen_random_uuid()::text, '-', '');
  v_user_id text;
  v_sequence integer;
  v_data jsonb;
begin
  -- Partners without an endpoint cost this one primary-key lookup.
  perform 1 from webhook_endpoint where partner_id = new.partner_id;
  if not found then
    return null;
  end if;
  -- The partner knows its users by its own id (sourceExternalUserId), not by ours.
  if v_row->>'user_id' is not null then
    select external_user_id into v_user_id from partner_user where id = (v_row->>'user_id')::uuid;
  end if;
  -- This change holds the operation's row lock (or inserts the row): one numbering at a time.
  select coalesce(max(sequence), 0) + 1 into v_sequence from webhook_event where operation_id = new.id;
  v_data := jsonb_build_object(
    'id', new.id,
    'status', new.status,
    -- An exchange has no stage column: it is stored once, final.
    'stage', coalesce(v_row->>'stage', case new.status when 'SUCCESSFUL' then 'SETTLED' when 'UNSUCCESSFUL' then 'FAILED' else 'EXCHANGING' end),
    'failureReason', coalesce(v_row->'failure_reason', 'null'::jsonb),
    'sequence', v_sequence);
  if v_user_id is not null then
    v_data := v_data || jsonb_build_object('userId', v_user_id);
  end if;
  insert into webhook_event (id, partner_id, operation_type, operation_id, sequence, type, payload, created_at, next_attempt_at)
  values (v_event_id, new.partner_id, v_operation_type, new.id, v_sequence, v_event_type,
          jsonb_build_object(
            'id', v_event_id,
            'type', v_event_type,
            'timestamp', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
            'data', v_data),
          now(), now());
  return null;
end $$;

-- Inserts always make an event; updates only when status or stage really changed.
create trigger crypto_withdrawal_webhook_insert after insert on crypto_withdrawal
  for each row execute function webhook_event_on_status_change();
create trigger crypto_withdrawal_webhook_update after update of status, stage on crypto_withdrawal
  for each row when (old.status is distinct from new.status or old.stage is distinct from new.stage)
  execute function webhook_event_on_status_change();
create trigger sepa_transfer_webhook_insert after insert on sepa_transfer
  for each row execute function webhook_event_on_status_change();
create trigger sepa_transfer_webhook_update after update of status, stage on sepa_transfer
  for each row when (old.status is distinct from new.status or old.stage is distinct from new.stage)
  execute function webhook_event_on_status_change();
create trigger exchange_webhook_insert after insert on exchange
  for each row execute function webhook_event_on_status_change();
create trigger exchange_webhook_update after update of status on exchange
  for each row when (old.status is distinct from new.status)
  execute function webhook_event_on_status_change();

-- Money credited other than on chain: deposit.succeeded, once, as a deposit row is final when written.
create function webhook_event_on_deposit() returns trigger language plpgsql as $$
declare
  v_event_id text := 'evt_' || replace(gen_random_uuid()::text, '-', '');
begin
  perform 1 from webhook_endpoint where partner_id = new.partner_id;
  if not found then
    return null;
  end if;
  insert into webhook_event (id, partner_id, operation_type, operation_id, sequence, type, payload, created_at, next_attempt_at)
  values (v_event_id, new.partner_id, 'deposit', new.id, 1, 'deposit.succeeded',
          jsonb_build_object(
            'id', v_event_id,
            'type', 'deposit.succeeded',
            'timestamp', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
            'data', jsonb_build_object(
              'id', new.id,
              'type', new.type,
              'status', 'SUCCESSFUL',
              'stage', 'CREDITED',
              'failureReason', 'null'::jsonb,
              'sequence', 1,
              'network', 'null'::jsonb,
              'currency', new.currency,
              'amount', trim_scale(new.amount)::text,
              'transactionHash', 'null'::jsonb)),
          now(), now());
  return null;
end $$;
create trigger deposit_webhook_insert after insert on deposit
  for each row execute function webhook_event_on_deposit();

-- The address book's entries are subjects too: created, then deleted, in that order.
create function webhook_event_on_withdrawal_address_change() returns trigger language plpgsql as $$
declare
  v_event_type text := case tg_op when 'INSERT' then 'withdrawal_address.created' else 'withdrawal_address.deleted' end;
  v_event_id text := 'evt_' || replace(gen_random_uuid()::text, '-', '');
  v_sequence integer;
begin
  -- Partners without an endpoint cost this one primary-key lookup.
  perform 1 from webhook_endpoint where partner_id = new.partner_id;
  if not found then
    return null;
  end if;
  -- The insert, or the deletion that holds the row's lock: one numbering at a time.
  select coalesce(max(sequence), 0) + 1 into v_sequence from webhook_event where operation_id = new.id;
  insert into webhook_event (id, partner_id, operation_type, operation_id, sequence, type, payload, created_at, next_attempt_at)
  values (v_event_id, new.partner_id, 'withdrawal-address', new.id, v_sequence, v_event_type,
          jsonb_build_object(
            'id', v_event_id,
            'type', v_event_type,
            'timestamp', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
            'data', jsonb_build_object(
              'id', new.id,
              'currency', new.currency,
              'network', new.network,
              'address', new.address,
              'label', new.label,
              -- As the API shows it at that moment: ACTIVE at once only without a cooling-off.
              'status', case when tg_op = 'UPDATE' then 'DELETED' when new.active_from <= new.created_at then 'ACTIVE' else 'PENDING' end,
              'activeFrom', to_char(new.active_from at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
              'createdAt', to_char(new.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))),
          now(), now());
  return null;
end $$;
create trigger withdrawal_address_webhook_insert after insert on withdrawal_address
  for each row execute function webhook_event_on_withdrawal_address_change();
create trigger withdrawal_address_webhook_delete after update of deleted_at on withdrawal_address
  for each row when (old.deleted_at is null and new.deleted_at is not null)
  execute function webhook_event_on_withdrawal_address_change();
`);
  }

  /**
   * The operators' trail, append-only for every role: the triggers fire even under `session_replication_role = replica`.
   * Actions and subject types are checked for their shape only, so a new command needs no migration.
   */
  private operators(): void {
    this.addSql(`
create table operator_action (
  id uuid primary key,
  -- Set for an action on an operation (ops operation show lists them).
  operation_id uuid,
  operation_type text check (operation_type in ('crypto-withdrawal', 'sepa-transfer')),
  action text not null check (action ~ '^[a-z][a-z0-9-]{0,62}$'),
  actor text not null check (length(actor) between 1 and 200),
  reason text check (length(reason) between 1 and 1000),
  details jsonb,
  created_at timestamptz not null default now(),
  os_user text check (length(os_user) between 1 and 200),
  subject_type text not null check (subject_type ~ '^[a-z][a-z0-9-]{0,62}$'),
  subject_id uuid not null,
  partner_id uuid,
  constraint operator_action_operation_check check ((operation_id is null) = (operation_type is null)),
  constraint operator_action_operation_subject_check
    check (subject_type <> 'operation' or (operation_id is not null and operation_id = subject_id))
);
create index operator_action_operation_idx on operator_action(operation_id, created_at);
create index operator_action_created_idx on operator_action (created_at desc, id desc);
create index operator_action_partner_idx on operator_action (partner_id, created_at desc, id desc) where partner_id is not null;
create index operator_action_action_idx on operator_action (action, created_at desc, id desc);

-- An operator action consumed by the workflow it was meant for (a travel-rule completion), once.
create table operator_action_use (
  action_id uuid primary key references operator_action(id),
  operation_id uuid not null,
  used_at timestamptz not null default now()
);

create function append_only_guard() returns trigger language plpgsql as $$
begin
  raise exception '% is append-only: % refused (an audit record is never changed or removed)', tg_table_name, tg_op
    using errcode = 'PP020';
end $$;
create trigger operator_action_append_only before update or delete on operator_action
  for each row execute function append_only_guard();
create trigger operator_action_no_truncate before truncate on operator_action
  for each statement execute function append_only_guard();
create trigger operator_action_use_append_only before update or delete on operator_action_use
  for each row execute function append_only_guard();
create trigger operator_action_use_no_truncate before truncate on operator_action_use
  for each statement execute function append_only_guard();
alter table operator_action enable always trigger operator_action_append_only;
alter table operator_action enable always trigger operator_action_no_truncate;
alter table operator_action_use enable always trigger operator_action_use_append_only;
alter table operator_action_use enable always trigger operator_action_use_no_truncate;

-- Ties a travel-rule completion to its audit row (details.completionDigest): the SHA-256 of {completedBy, beneficiary} as
-- jsonb writes it (keys ordered, one spacing), so key order does not count. Computed here only: the CLI, the recording
-- step and the hand-off all ask the database.
create function travel_rule_completion_digest(p_completed_by text, p_beneficiary jsonb) returns text
language sql immutable as $$
  select encode(sha256(convert_to((jsonb_build_object('completedBy', p_completed_by)
    || case when p_beneficiary is null or p_beneficiary = 'null'::jsonb then '{}'::jsonb
            else jsonb_build_object('beneficiary', p_beneficiary) end)::text, 'UTF8')), 'hex')
$$;

-- Why a withdrawal may not be handed to the chain yet, from what the database holds (not what a workflow says); null when
-- it may. A completion counts only with the audit row it was recorded from, used by this withdrawal and of the same digest:
-- one written into travel_rule by SQL moves nothing. Addresses compare in ASCII letter case only (collation "C"), so a
-- destination of other characters is held back (the API accepts none).
create function withdrawal_hand_off_unmet(w crypto_withdrawal, p_deny_list jsonb) returns text language sql stable as $$
  select case
    when jsonb_typeof(w.travel_rule->'ivms101') is distinct from 'object' then 'its travel-rule check has not run'
    when w.destination !~ '^[!-~]+$' then 'its destination is not printable ASCII'
    when exists (select 1 from jsonb_array_elements_text(p_deny_list) denied(address)
                  where lower(denied.address collate "C") = lower(w.destination collate "C"))
      then 'its destination is on the deny list'
    when w.travel_rule->'requiresCompletion' is distinct from 'true'::jsonb then null
    when jsonb_typeof(w.travel_rule->'completion') is distinct from 'object' then 'its travel-rule data has not been completed'
    when not exists (
      select 1 from operator_action_use u join operator_action a on a.id = u.action_id
       where u.action_id::text = lower(w.travel_rule->'completion'->>'operatorActionId') and u.operation_id = w.id
         and a.operation_id = w.id and a.action = 'travel-rule-complete'
         and a.details->>'completionDigest'
           = travel_rule_completion_digest(w.travel_rule->'completion'->>'completedBy', w.travel_rule->'completion'->'beneficiary'))
      then 'its travel-rule completion was not recorded from an operator action (npm run ops -- travel-rule complete)'
  end
$$;

-- A deposit waiting for a second operator: one change only, PENDING to APPROVED, never by its requester.
create table manual_credit (
  id uuid primary key,
  partner_id uuid not null references partner(id) deferrable initially deferred,
  currency text not null check (currency in ('eur', 'btc', 'doge', 'eth', 'ltc', 'pol', 'usdc')),
  amount numeric(38,18) not null check (amount > 0),
  -- At the configured rate when it was requested: what the approval threshold was compared with.
  amount_eur numeric(38,18) not null check (amount_eur >= 0),
  type text not null check (type in ('sepaDeposit', 'fiatDeposit', 'cryptoDeposit')),
  requested_by text not null check (length(requested_by) between 1 and 200),
  requested_os_user text not null check (length(requested_os_user) between 1 and 200),
  reason text check (length(reason) between 1 and 1000),
  requested_at timestamptz not null,
  status text not null check (status in ('PENDING', 'APPROVED')),
  approved_by text check (length(approved_by) between 1 and 200),
  approved_os_user text check (length(approved_os_user) between 1 and 200),
  approved_at timestamptz,
  -- The deposit (and ledger transfer) the approval posted.
  transaction_id uuid unique references deposit(id) deferrable initially deferred,
  check ((status = 'APPROVED') = (approved_by is not null and approved_os_user is not null
                                  and approved_at is not null and transaction_id is not null)),
  check (status = 'PENDING' or (approved_at is not null and approved_at >= requested_at))
);
create index manual_credit_pending_idx on manual_credit (requested_at) where status = 'PENDING';

create function manual_credit_guard() returns trigger language plpgsql as $$
begin
  if tg_op <> 'UPDATE' then
    raise exception 'manual_credit: % refused (a credit request is approved, never removed)', tg_op using errcode = 'PP021';
  end if;
  if old.status <> 'PENDING' or new.status <> 'APPROVED' then
    raise exception 'manual credit % is %: only a PENDING credit can be approved, once', old.id, old.status using errcode = 'PP021';
  end if;
  if (new.id, new.partner_id, new.currency, new.amount, new.amount_eur, new.type, new.requested_by, new.requested_os_user,
      new.reason, new.requested_at)
     is distinct from
     (old.id, old.partner_id, old.currency, old.amount, old.amount_eur, old.type, old.requested_by, old.requested_os_user,
      old.reason, old.requested_at) then
    raise exception 'manual credit %: what was requested cannot change', old.id using errcode = 'PP021';
  end if;
  if lower(new.approved_by) = lower(old.requested_by) then
    raise exception 'manual credit %: its requester cannot approve it', old.id using errcode = 'PP021';
  end if;
  return new;
end $$;
create trigger manual_credit_guard before update or delete on manual_credit
  for each row execute function manual_credit_guard();
create trigger manual_credit_no_truncate before truncate on manual_credit
  for each statement execute function manual_credit_guard();
alter table manual_credit enable always trigger manual_credit_guard;
alter table manual_credit enable always trigger manual_credit_no_truncate;
`);
  }

  /**
   * Incoming SEPA credits, and the simulated bank (a bank all workers share, answering by the database's clock), whose
   * tables nothing references.
   */
  private bank(): void {
    this.addSql(`
-- Every booked credit the bank notified, once: CREDITED to a partner's ACTIVE EUR account, else UNMATCHED in SEPA_SUSPENSE
-- until assigned (ASSIGNED) or returned (RETURNING, then RETURNED; UNMATCHED again if the return is rejected).
create table incoming_sepa_credit (
  id uuid primary key,
  entry_ref text not null unique check (length(entry_ref) between 1 and 35),
  account_iban text not null check (account_iban ~ '^[A-Z]{2}[0-9]{2}[A-Z0-9]{1,30}$'),
  amount numeric(38,2) not null check (amount > 0),
  booking_date date,
  value_date date,
  debtor_name text not null check (length(debtor_name) between 1 and 140),
  debtor_iban text not null check (debtor_iban ~ '^[A-Z]{2}[0-9]{2}[A-Z0-9]{1,30}$'),
  remittance text check (length(remittance) between 1 and 140),
  message_id text not null check (length(message_id) between 1 and 35),
  received_at timestamptz not null,
  status text not null check (status in ('CREDITED', 'UNMATCHED', 'ASSIGNED', 'RETURNING', 'RETURNED')),
  unmatched_reason text check (unmatched_reason in ('NO_ACCOUNT', 'ACCOUNT_NOT_ACTIVE')),
  -- Who was credited, and the deposit that credited them (CREDITED, ASSIGNED).
  partner_id uuid references partner(id) deferrable initially deferred,
  deposit_id uuid unique references deposit(id) deferrable initially deferred,
  -- The posting into suspense of a credit that did not match (every status but CREDITED).
  suspense_transfer_id uuid unique references ledger_transfer(id) deferrable initially deferred,
  -- The return: the payment's id at the bank (and the id of its ledger transfer once settled).
  return_id uuid unique,
  return_bank_reference text check (length(return_bank_reference) between 1 and 200),
  return_requested_at timestamptz,
  -- Why the bank rejected the last return (the credit is UNMATCHED again).
  return_rejection text check (length(return_rejection) between 1 and 500),
  resolved_at timestamptz,
  check ((status in ('CREDITED', 'ASSIGNED')) = (partner_id is not null and deposit_id is not null)),
  check ((status = 'CREDITED') = (suspense_transfer_id is null and unmatched_reason is null)),
  check ((status in ('RETURNING', 'RETURNED')) = (return_id is not null and return_requested_at is not null)),
  check (return_bank_reference is null or return_id is not null),
  check ((status in ('CREDITED', 'ASSIGNED', 'RETURNED')) = (resolved_at is not null))
);
create index incoming_sepa_credit_open_idx on incoming_sepa_credit (received_at, id) where status in ('UNMATCHED', 'RETURNING');

-- What was received never changes, only those moves are allowed, nothing is deleted.
create function incoming_sepa_credit_guard() returns trigger language plpgsql as $$
begin
  if tg_op <> 'UPDATE' then
    raise exception 'incoming_sepa_credit: % refused (a received credit is resolved, never removed)', tg_op using errcode = 'PP022';
  end if;
  if (new.id, new.entry_ref, new.account_iban, new.amount, new.booking_date, new.value_date, new.debtor_name, new.debtor_iban,
      new.remittance, new.message_id, new.received_at, new.unmatched_reason, new.suspense_transfer_id)
     is distinct from
     (old.id, old.entry_ref, old.account_iban, old.amount, old.booking_date, old.value_date, old.debtor_name, old.debtor_iban,
      old.remittance, old.message_id, old.received_at, old.unmatched_reason, old.suspense_transfer_id) then
    raise exception 'incoming credit %: what was received cannot change', old.entry_ref using errcode = 'PP022';
  end if;
  if not ((old.status = 'UNMATCHED' and new.status in ('ASSIGNED', 'RETURNING'))
       or (old.status = 'RETURNING' and new.status in ('RETURNING', 'RETURNED', 'UNMATCHED'))) then
    raise exception 'incoming credit %: % cannot become %', old.entry_ref, old.status, new.status using errcode = 'PP022';
  end if;
  if old.status = 'RETURNING' and new.status = 'RETURNING' and new.return_id is distinct from old.return_id then
    raise exception 'incoming credit %: a return under way keeps its payment id', old.entry_ref using errcode = 'PP022';
  end if;
  return new;
end $$;
create trigger incoming_sepa_credit_guard before update or delete on incoming_sepa_credit
  for each row execute function incoming_sepa_credit_guard();
create trigger incoming_sepa_credit_no_truncate before truncate on incoming_sepa_credit
  for each statement execute function incoming_sepa_credit_guard();
alter table incoming_sepa_credit enable always trigger incoming_sepa_credit_guard;
alter table incoming_sepa_credit enable always trigger incoming_sepa_credit_no_truncate;

-- Where the ingest reads the bank's notifications from next.
create table bank_notification_cursor (
  source text primary key check (source ~ '^[a-z][a-z0-9-]{0,62}$'),
  position text check (length(position) between 1 and 1000),
  updated_at timestamptz not null
);

create table simulated_bank_payment (
  transfer_id text primary key check (transfer_id ~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$'),
  message_id text not null check (length(message_id) between 1 and 35),
  amount numeric(38, 2) not null check (amount > 0),
  creditor_iban text not null check (length(creditor_iban) between 15 and 34),
  pain001 text not null check (length(pain001) <= 100000),
  submitted_at timestamptz not null default clock_timestamp(),
  answer_at timestamptz not null,
  outcome text not null check (outcome in ('SETTLED', 'REJECTED')),
  rejection_reason text check ((outcome = 'REJECTED') = (rejection_reason is not null) and length(rejection_reason) <= 500)
);

-- The camt.054 documents the simulated bank delivers, in the order npm run ops -- bank receive recorded them.
create table simulated_bank_notification (
  id uuid primary key,
  -- Inserts are serialised (an advisory lock), so a reader's cursor never passes a sequence still to commit.
  sequence bigint generated always as identity unique,
  entry_ref text not null check (length(entry_ref) between 1 and 35),
  account_iban text not null check (length(account_iban) between 15 and 34),
  amount numeric(38,2) not null check (amount > 0),
  debtor_name text not null check (length(debtor_name) between 1 and 140),
  debtor_iban text not null check (length(debtor_iban) between 15 and 34),
  remittance text check (length(remittance) between 1 and 140),
  camt054 text not null check (length(camt054) <= 2000000),
  received_at timestamptz not null default clock_timestamp()
);
create index simulated_bank_notification_entry_ref_idx on simulated_bank_notification (entry_ref);
`);
  }

  /** The EVM adapter's state, what makes a withdrawal go on chain once; it knows withdrawals only by id (no foreign key). */
  private chain(): void {
    this.addSql(`
-- Each hot wallet's next nonce, taken under the row lock with the signed transaction: gap-free, one withdrawal each.
create table evm_wallet_nonce (
  network text not null check (network in ('ethereum', 'polygon')),
  address text not null check (address ~ '^0x[0-9a-f]{40}$'),
  next_nonce bigint not null check (next_nonce >= 0),
  primary key (network, address)
);

-- One row per withdrawal (or sweep), so a retry with other details is refused; one withdrawal per nonce.
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

-- The signed first transaction and fee-raising replacements, stored before sent; sharing a nonce, at most one lands.
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
);

-- The chain each network is on, recorded at first use and checked before every use of a node: another chain is refused
-- until an operator adopts it (npm run ops -- chain adopt).
create table evm_chain_identity (
  network text primary key check (network in ('ethereum', 'polygon')),
  -- A new one per identity (first use, each adoption): what the operators' audit trail names.
  id uuid not null unique,
  chain_id bigint not null check (chain_id > 0),
  genesis_hash text not null check (genesis_hash ~ '^0x[0-9a-f]{64}$'),
  recorded_at timestamptz not null,
  adopted_at timestamptz,
  adopted_by text check (length(adopted_by) between 1 and 200),
  check ((adopted_at is null) = (adopted_by is null))
);
`);
  }

  /** Crypto deposits found on chain, and the sweeps to the hot wallet (which change custody, never partner balances). */
  private deposits(): void {
    this.addSql(`
-- One sweep of a (network, deposit address, currency): the evm_transaction under its id, signed by the address's key; a
-- token sweep's gas comes first from the hot wallet. IN_FLIGHT until confirmed: SWEPT, or FAILED with why.
create table evm_sweep (
  id uuid primary key,
  network text not null check (network in ('ethereum', 'polygon')),
  currency text not null check (currency in ('eth', 'pol', 'usdc')),
  address text not null check (address ~ '^0x[0-9a-f]{40}$'),
  partner_id uuid not null references partner(id) deferrable initially deferred,
  deposit_index integer not null check (deposit_index between 0 and 2147483647),
  hot_wallet text not null check (hot_wallet ~ '^0x[0-9a-f]{40}$'),
  -- The credited deposits' sum in the currency's smallest unit: at most this leaves the address.
  amount_base_units numeric(78, 0) not null check (amount_base_units > 0),
  -- What the sweep's transaction moves (a native sweep: the amount, or what the address holds, minus its gas).
  sent_base_units numeric(78, 0) check (sent_base_units > 0),
  status text not null check (status in ('IN_FLIGHT', 'SWEPT', 'FAILED')),
  failure_reason text check (failure_reason in ('ADDRESS_NOT_DERIVED', 'NOTHING_AT_ADDRESS', 'REVERTED', 'NONCE_MISMATCH')),
  gas_top_up_transaction_id uuid unique,
  gas_top_up_base_units numeric(78, 0) check (gas_top_up_base_units > 0),
  -- The address can pay its transaction's gas (a token sweep's top-up confirmed, or not needed; a native sweep pays its own).
  gas_ready_at timestamptz,
  -- Set before the sweep's transaction is first sent: from then on it may be on chain.
  sent_at timestamptz,
  -- The attempt that landed, once final.
  transaction_hash text check (transaction_hash ~ '^0x[0-9a-f]{64}$'),
  created_at timestamptz not null,
  finished_at timestamptz,
  check ((status = 'FAILED') = (failure_reason is not null)),
  check ((status = 'IN_FLIGHT') = (finished_at is null)),
  check (status <> 'SWEPT' or (transaction_hash is not null and sent_base_units is not null)),
  check ((gas_top_up_transaction_id is null) = (gas_top_up_base_units is null))
);
-- One sweep in flight per address: a native sweep never spends the gas a token sweep was given.
create unique index evm_sweep_in_flight_idx on evm_sweep (network, address) where status = 'IN_FLIGHT';
-- Custody reads the addresses of sweeps not SWEPT (in flight, or failed: their coins may still be there).
create index evm_sweep_not_swept_idx on evm_sweep (network) where status <> 'SWEPT';
-- The operators' list, newest first.
create index evm_sweep_created_idx on evm_sweep (created_at desc, id desc);

-- One row per transfer to a deposit address (log index -1: native), credited with its DEPOSIT transfer under its id. A
-- reorganisation makes it ORPHANED (freeing the key); a credited one keeps its credit and gets block_orphaned_at, a finding.
create table crypto_deposit (
  id uuid primary key,
  partner_id uuid not null references partner(id) deferrable initially deferred,
  account_id uuid not null,
  network text not null check (network in ('ethereum', 'polygon')),
  currency text not null check (currency in ('eth', 'pol', 'usdc')),
  amount numeric(38,18) not null check (amount > 0),
  transaction_hash text not null check (transaction_hash ~ '^0x[0-9a-f]{64}$'),
  log_index integer not null check (log_index >= -1),
  block_number bigint not null check (block_number >= 0),
  block_hash text not null check (block_hash ~ '^0x[0-9a-f]{64}$'),
  address text not null check (address ~ '^0x[0-9a-fA-F]{40}$'),
  status text not null check (status in ('IN_PROGRESS', 'SUCCESSFUL', 'UNSUCCESSFUL')),
  stage text not null check (stage in ('SEEN', 'CREDITED', 'BELOW_MINIMUM', 'ORPHANED')),
  failure_reason text check (failure_reason in ('BELOW_MINIMUM_DEPOSIT', 'REMOVED_BY_REORGANISATION')),
  created_at timestamptz not null default now(),
  credited_at timestamptz,
  block_orphaned_at timestamptz,
  -- The sweep that took the deposit.
  sweep_id uuid references evm_sweep(id) deferrable initially deferred,
  -- The credited account is the partner's account in the deposit's currency.
  foreign key (account_id, currency) references account(id, currency) deferrable initially deferred,
  check ((status = 'IN_PROGRESS') = (stage = 'SEEN')),
  check ((status = 'SUCCESSFUL') = (stage = 'CREDITED')),
  check ((stage = 'CREDITED') = (credited_at is not null)),
  check ((status = 'UNSUCCESSFUL') = (failure_reason is not null)),
  check (block_orphaned_at is null or stage = 'CREDITED'),
  constraint crypto_deposit_swept_when_credited check (sweep_id is null or stage = 'CREDITED')
);
-- One live deposit per transfer on chain; an orphaned one frees its key.
create unique index crypto_deposit_chain_key on crypto_deposit (network, transaction_hash, log_index) where stage <> 'ORPHANED';
create index crypto_deposit_partner_history_idx on crypto_deposit (partner_id, created_at desc, id desc);
-- What a rewind or a round of crediting reads: a network's deposits from a block on.
create index crypto_deposit_block_idx on crypto_deposit (network, block_number);
create index crypto_deposit_below_minimum_idx on crypto_deposit (created_at) where stage = 'BELOW_MINIMUM';
create index crypto_deposit_orphaned_credit_idx on crypto_deposit (block_orphaned_at) where block_orphaned_at is not null;
-- What the sweeper reads every few seconds: credited deposits no sweep took yet.
create index crypto_deposit_unswept_idx on crypto_deposit (network, credited_at) where stage = 'CREDITED' and sweep_id is null;
create index crypto_deposit_sweep_idx on crypto_deposit (sweep_id) where sweep_id is not null;

-- Per network, the last block read and its chain: a node on another chain is noticed, not read as a reorganisation.
create table evm_deposit_cursor (
  network text primary key check (network in ('ethereum', 'polygon')),
  chain_id bigint not null check (chain_id > 0),
  genesis_hash text not null check (genesis_hash ~ '^0x[0-9a-f]{64}$'),
  last_block bigint not null check (last_block >= 0),
  updated_at timestamptz not null
);

-- The hash of each block read (the last few hundred), to find the fork point.
create table evm_scanned_block (
  network text not null check (network in ('ethereum', 'polygon')),
  number bigint not null check (number >= 0),
  hash text not null check (hash ~ '^0x[0-9a-f]{64}$'),
  parent_hash text not null check (parent_hash ~ '^0x[0-9a-f]{64}$'),
  primary key (network, number)
);

-- One event per status (deposit.pending, .succeeded, .failed): a change of stage alone sends none.
create function webhook_event_on_crypto_deposit() returns trigger language plpgsql as $$
declare
  v_event_type text := case new.status when 'IN_PROGRESS' then 'deposit.pending'
                                       when 'SUCCESSFUL' then 'deposit.succeeded'
                                       else 'deposit.failed' end;
  v_event_id text := 'evt_' || replace(gen_random_uuid()::text, '-', '');
  v_sequence integer;
begin
  -- Partners without an endpoint cost this one primary-key lookup.
  perform 1 from webhook_endpoint where partner_id = new.partner_id;
  if not found then
    return null;
  end if;
  -- This change holds the deposit's row lock (or inserts the row): one numbering at a time.
  select coalesce(max(sequence), 0) + 1 into v_sequence from webhook_event where operation_id = new.id;
  insert into webhook_event (id, partner_id, operation_type, operation_id, sequence, type, payload, created_at, next_attempt_at)
  values (v_event_id, new.partner_id, 'crypto-deposit', new.id, v_sequence, v_event_type,
          jsonb_build_object(
            'id', v_event_id,
            'type', v_event_type,
            'timestamp', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
            'data', jsonb_build_object(
              'id', new.id,
              'type', 'cryptoDeposit',
              'status', new.status,
              'stage', new.stage,
              'failureReason', coalesce(to_jsonb(new.failure_reason), 'null'::jsonb),
              'sequence', v_sequence,
              'network', new.network,
              'currency', new.currency,
              -- Text: a JSON number would pass through a float on many receivers.
              'amount', trim_scale(new.amount)::text,
              'transactionHash', new.transaction_hash)),
          now(), now());
  return null;
end $$;
create trigger crypto_deposit_webhook_insert after insert on crypto_deposit
  for each row execute function webhook_event_on_crypto_deposit();
create trigger crypto_deposit_webhook_update after update of status on crypto_deposit
  for each row when (old.status is distinct from new.status)
  execute function webhook_event_on_crypto_deposit();
`);
  }

  private reconciliation(): void {
    this.addSql(`
create table reconciliation_report (
  id uuid primary key,
  created_at timestamptz not null default now(),
  ok boolean not null,
  report jsonb not null
);
create index reconciliation_report_created_idx on reconciliation_report(created_at);
`);
  }

  /** Last: a row inserted under deferred foreign keys leaves trigger events pending, and its table cannot be altered or indexed until commit. */
  private initialRows(): void {
    this.addSql(`
-- The house's side of every movement, one account per code and currency; SEPA_SUSPENSE in EUR only.
insert into account (id, kind, system_code, currency)
select gen_random_uuid(), 'SYSTEM', code, currency
  from unnest(array['EXTERNAL_DEPOSITS', 'FEE_INCOME', 'EXCHANGE_DESK', 'CRYPTO_WITHDRAWALS', 'SEPA_CLEARING']) as code,
       unnest(array['eur', 'btc', 'doge', 'eth', 'ltc', 'pol', 'usdc']) as currency;
insert into account (id, kind, system_code, currency) values (gen_random_uuid(), 'SYSTEM', 'SEPA_SUSPENSE', 'eur');

insert into network_config (currency, network, mainnet, fee_withdrawal, min_withdrawal, min_deposit) values
  ('btc',  'bitcoin',  true, 0.00005, 0.0001, 0.00005),
  ('doge', 'dogecoin', true, 2,       10,     5),
  ('eth',  'ethereum', true, 0.0005,  0.001,  0.0005),
  ('ltc',  'litecoin', true, 0.0001,  0.001,  0.0005),
  ('pol',  'polygon',  true, 0.1,     1,      0.5),
  ('usdc', 'ethereum', true, 3,       10,     5),
  ('usdc', 'polygon',  true, 0.1,     1,      1);
`);
  }
}
