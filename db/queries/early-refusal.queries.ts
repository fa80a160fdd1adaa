import type pg from 'pg';

/**
 * What the API reads to refuse, before recording anything or starting a workflow, an operation that cannot succeed. Only
 * advisory: the database functions decide (a lock may be used, or a balance spent, a moment later); these only spare the
 * workers what is refused anyway. Read on the primary: a lock or a deposit of a moment ago must be seen.
 */

/** Whether the API accepted this operation already: a retry must reach its workflow, whatever the terms say now. */
export async function isOperationAccepted(pool: pg.Pool, id: string): Promise<boolean> {
  const { rows } = await pool.query({
    name: 'is_operation_accepted',
    text: 'select 1 from accepted_operation where id = $1',
    values: [id],
  });
  return rows.length > 0;
}

/** Why this partner's lock cannot buy an exchange requested at `at`, in execute_exchange's words; undefined when it can. */
export async function rateLockProblem(pool: pg.Pool, partnerId: string, lockId: string, at: Date): Promise<string | undefined> {
  const { rows } = await pool.query<{ used: boolean; expired: boolean }>({
    name: 'rate_lock_problem',
    text: `select used_at is not null as used, date_trunc('milliseconds', valid_until) <= $3 as expired
             from rate_lock where id = $1 and partner_id = $2`,
    values: [lockId, partnerId, at],
  });
  const lock = rows[0];
  if (!lock) return 'the lock does not exist';
  if (lock.used) return 'the lock has already been used';
  if (lock.expired) return 'the lock has expired';
  return undefined;
}

/**
 * Whether reserve_outgoing_payment would refuse this payment for funds and for nothing it checks first: the available
 * balance (posted − pending out) is below what it would hold, and (a SEPA transfer) the EUR account is ACTIVE, (a crypto
 * withdrawal) the partner's policy requires no address-book entry. No account: the function decides.
 */
export async function refusedForFundsAlone(
  pool: pg.Pool,
  payment: { kind: 'sepa-transfer' | 'crypto-withdrawal'; partnerId: string; currency: string; held: string },
): Promise<boolean> {
  const { rows } = await pool.query<{ refused: boolean }>({
    name: 'refused_for_funds_alone',
    text: `select a.posted_amount - a.pending_out_amount < $3::numeric
                  and ($4 <> 'sepa-transfer' or a.fiat_status = 'ACTIVE')
                  and ($4 <> 'crypto-withdrawal' or not coalesce(p.allowlist_required, false)) as refused
             from account a left join partner_policy p on p.partner_id = a.partner_id
            where a.kind = 'PARTNER' and a.partner_id = $1 and a.currency = $2`,
    values: [payment.partnerId, payment.currency, payment.held, payment.kind],
  });
  return rows[0]?.refused ?? false;
}
