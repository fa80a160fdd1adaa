import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';

/** An incoming SEPA credit waiting for an operator (`ops bank unmatched`). */
export interface OpenIncomingCreditRow {
  entryRef: string;
  /** Our account the bank credited. */
  iban: string;
  /** Exact text, two decimals. */
  amount: string;
  debtorName: string;
  debtorIban: string;
  remittance: string | null;
  /** ISO 8601 in UTC, made by Postgres. */
  receivedAt: string;
  /** UNMATCHED, or RETURNING while its return is with the bank. */
  status: string;
  reason: string;
  /** The partner whose account has this IBAN (not ACTIVE), or null when none has it. */
  accountPartnerId: string | null;
  returnRejection: string | null;
}

/** Oldest first (the partial index on open credits serves it), at most `limit`. */
export async function listOpenIncomingCredits(em: EntityManager, limit: number): Promise<OpenIncomingCreditRow[]> {
  return em.execute<OpenIncomingCreditRow[]>(
    `select c.entry_ref as "entryRef", c.account_iban as iban, c.amount::text as amount, c.debtor_name as "debtorName",
            c.debtor_iban as "debtorIban", c.remittance,
            to_char(c.received_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "receivedAt",
            c.status, c.unmatched_reason as reason, a.partner_id as "accountPartnerId", c.return_rejection as "returnRejection"
       from incoming_sepa_credit c
       left join account a on a.iban = c.account_iban and a.kind = 'PARTNER'
      where c.status in ('UNMATCHED', 'RETURNING')
      order by c.received_at, c.id
      limit ?`,
    [limit],
  );
}

export interface SuspenseMismatchRow {
  /** What the SEPA_SUSPENSE account holds (its posted postings). */
  suspense: string;
  /** What the credits waiting for an operator add up to. */
  open_credits: string;
}

/** A row when SEPA_SUSPENSE does not hold exactly the open (UNMATCHED or RETURNING) credits, as every change keeps it. */
export async function findSuspenseMismatch(pool: pg.Pool): Promise<SuspenseMismatchRow[]> {
  const result = await pool.query<SuspenseMismatchRow>(
    `select s.suspense::text as suspense, o.open_credits::text as open_credits
       from (select coalesce(sum(posted_amount), 0) as suspense from system_account_balance where system_code = 'SEPA_SUSPENSE') s,
            (select coalesce(sum(amount), 0) as open_credits from incoming_sepa_credit where status in ('UNMATCHED', 'RETURNING')) o
      where s.suspense <> o.open_credits`,
  );
  return result.rows;
}
