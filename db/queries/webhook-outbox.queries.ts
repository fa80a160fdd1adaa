import type pg from 'pg';
import type { WebhookEvent } from '../../core/webhook-event';

/** An event claimed for one delivery attempt, with where to send it and the key to sign it with. */
export interface ClaimedWebhookEvent {
  id: string;
  partnerId: string;
  payload: WebhookEvent;
  /** Attempts made before this one. */
  attempts: number;
  createdAt: Date;
  url: string;
  secret: string;
}

/**
 * Claims up to `limit` due, unclaimed events until `claimUntil`: per subject only its lowest open sequence (in order, one
 * at a time); per partner at most `perPartner` under way across dispatchers, so a slow endpoint cannot take every slot
 * (concurrent claims may pass the cap a little, never send one event twice). The claim keeps dispatchers apart during the
 * HTTP call and expires if its holder dies.
 */
export async function claimDueWebhookEvents(
  pool: pg.Pool,
  claim: { now: Date; limit: number; perPartner: number; claimUntil: Date },
): Promise<ClaimedWebhookEvent[]> {
  const result = await pool.query<ClaimedWebhookEvent>(
    `with under_way as (
       select partner_id, count(*)::int as deliveries
         from webhook_event
        where delivered_at is null and given_up_at is null and claimed_until > $1
        group by partner_id),
     candidate as (
       select e.id, e.next_attempt_at,
              row_number() over (partition by e.partner_id order by e.next_attempt_at, e.id) as place,
              coalesce(u.deliveries, 0) as deliveries
         from webhook_event e
         left join under_way u on u.partner_id = e.partner_id
        where e.delivered_at is null and e.given_up_at is null
          and e.next_attempt_at <= $1
          and (e.claimed_until is null or e.claimed_until <= $1)
          -- Only events that can be sent: one whose endpoint was removed meanwhile must not take a slot.
          and exists (select 1 from webhook_endpoint w where w.partner_id = e.partner_id)
          and not exists (
                select 1 from webhook_event earlier
                 where earlier.operation_id = e.operation_id and earlier.sequence < e.sequence
                   and earlier.delivered_at is null and earlier.given_up_at is null)),
     chosen as (
       select id from candidate where place <= $4 - deliveries order by next_attempt_at limit $2),
     due as (
       select e.id from webhook_event e where e.id in (select id from chosen)
        for update of e skip locked)
     update webhook_event e
        set claimed_until = $3
       from due, webhook_endpoint w
      where e.id = due.id and w.partner_id = e.partner_id
            -- Checked again on the locked row: a claim taken meanwhile wins.
            and (e.claimed_until is null or e.claimed_until <= $1)
     returning e.id, e.partner_id as "partnerId", e.payload, e.attempts, e.created_at as "createdAt", w.url, w.secret`,
    [claim.now, claim.limit, claim.claimUntil, claim.perPartner],
  );
  return result.rows;
}

/** What became of one attempt, and what the event does next. */
export interface WebhookAttemptRecord {
  eventId: string;
  attemptedAt: Date;
  /** Null when no answer came. */
  httpStatus: number | null;
  /** Null when delivered. */
  error: string | null;
  durationMs: number;
  next: { delivered: Date } | { retryAt: Date } | { givenUp: Date };
}

/**
 * Logs the attempt and moves the event on, releasing its claim, in one statement; if another dispatcher settled it
 * meanwhile (an expired claim), the attempt is still logged and the event keeps the first outcome.
 */
export async function recordWebhookAttempt(pool: pg.Pool, record: WebhookAttemptRecord): Promise<void> {
  const { next } = record;
  await pool.query(
    `with attempt as (
       insert into webhook_delivery_attempt (id, event_id, attempt, attempted_at, http_status, error, duration_ms)
       select gen_random_uuid(), e.id, e.attempts + 1, $2, $3, $4, $5 from webhook_event e where e.id = $1
       returning event_id)
     update webhook_event e
        set attempts = e.attempts + 1,
            last_error = $4,
            delivered_at = $6,
            next_attempt_at = coalesce($7, e.next_attempt_at),
            given_up_at = $8,
            claimed_until = null
       from attempt
      where e.id = attempt.event_id and e.delivered_at is null and e.given_up_at is null`,
    [
      record.eventId,
      record.attemptedAt,
      record.httpStatus,
      record.error,
      record.durationMs,
      'delivered' in next ? next.delivered : null,
      'retryAt' in next ? next.retryAt : null,
      'givenUp' in next ? next.givenUp : null,
    ],
  );
}

/** Hands claimed events back at once (a dispatcher stopping mid-delivery), instead of waiting for the claims to expire. */
export async function releaseWebhookClaims(pool: pg.Pool, eventIds: readonly string[]): Promise<void> {
  if (eventIds.length === 0) return;
  await pool.query('update webhook_event set claimed_until = null where id = any($1::text[]) and delivered_at is null', [eventIds]);
}
