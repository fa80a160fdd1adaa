import { Migration } from '@mikro-orm/migrations';

/**
 * The ledger in the database: one statement per ledger operation instead of a dozen round trips.
 *
 * - `ledger_open` creates a transfer, PENDING (a hold) or POSTED (final at once), with its
 *   postings; `ledger_complete` posts or voids a hold. Both are idempotent on the transfer id and
 *   lock partner accounts in id order, so concurrent transfers never deadlock.
 * - Postings name their account by id, or by (system code, currency), or by (partner, currency):
 *   the function resolves them, so callers need no lookups first.
 * - Only partner accounts keep a cached balance (posted, pending out, pending in), updated with
 *   the overdraft check in the same UPDATE. System accounts keep none: their balance is the sum of
 *   their postings (`system_account_balance`), so no two operations of a currency queue on one row.
 * - The balance trigger now runs once per statement (postings are only ever inserted, all of a
 *   transfer in one statement, by ledger_open) instead of once per posting at commit. The
 *   overdraft CHECK, the void guard and the tombstone stay as they were.
 *
 * Errors carry their own SQLSTATE: PP002 insufficient funds, PP003 a transfer given up on
 * (a tombstone), PP009 a broken invariant (a bug upstream). db/ledger/ledger.ts maps them.
 */
export class Migration20261122020000_fast_ledger extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
-- The deferred foreign keys would queue checks for the update below, and ALTER TABLE refuses a
-- table with checks still queued: run them at once in this transaction.
set constraints all immediate;
update account set posted_amount = 0, pending_out_amount = 0, pending_in_amount = 0 where kind = 'SYSTEM';
alter table account add constraint account_system_keeps_no_cached_balance
  check (kind = 'PARTNER' or (posted_amount = 0 and pending_out_amount = 0 and pending_in_amount = 0));

-- The balance check, once per statement instead of once per posting at commit: every transfer
-- whose postings the statement inserted must balance in each currency, counting its earlier ones.
drop trigger ledger_posting_balanced on ledger_posting;
drop function ledger_transfer_must_balance();
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
    -- Already there (a re-run), or a tombstone: callers look for their business record first,
    -- so a voided transfer here is an operation given up on, which must never move money.
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

  -- Partner accounts in id order; the overdraft check is part of the UPDATE, so a concurrent
  -- hold is seen (READ COMMITTED re-checks the condition on the newest row).
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
`);
  }
}
