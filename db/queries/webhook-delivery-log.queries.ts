import type { EntityManager } from '@mikro-orm/postgresql';
import type { WebhookEvent } from '../../core/webhook-event';

export interface WebhookDeliveryAttemptView {
  attempt: number;
  attemptedAt: string;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
}

export interface WebhookEventLogEntry {
  id: string;
  type: string;
  operationType: string;
  operationId: string;
  sequence: number;
  deliveryStatus: 'delivered' | 'pending' | 'given-up';
  attempts: number;
  createdAt: string;
  deliveredAt: string | null;
  givenUpAt: string | null;
  /** When the next attempt is due; null once delivered or given up. */
  nextAttemptAt: string | null;
  lastError: string | null;
  payload: WebhookEvent;
  /** Oldest first; the last 100 at most. */
  deliveryAttempts: WebhookDeliveryAttemptView[];
}

interface LogRow {
  id: string;
  type: string;
  operation_type: string;
  operation_id: string;
  sequence: number;
  payload: WebhookEvent;
  created_at: string;
  attempts: number;
  next_attempt_at: string;
  delivered_at: string | null;
  given_up_at: string | null;
  last_error: string | null;
  delivery_attempts: WebhookDeliveryAttemptView[];
}

/** The most attempts shown per event; the give-up rule keeps an event well below it. */
const ATTEMPTS_SHOWN = 100;

/** ISO 8601 in UTC, written by Postgres: MikroORM's connection hands timestamps over as text. */
const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A partner's webhook events, newest first, each with its delivery attempts (one index scan, stops after `limit`). */
export async function findWebhookDeliveryLog(em: EntityManager, partnerId: string, limit: number): Promise<WebhookEventLogEntry[]> {
  const rows = await em.execute<LogRow[]>(
    `select e.id, e.type, e.operation_type, e.operation_id, e.sequence, e.payload, ${iso('e.created_at')} as created_at,
            e.attempts, ${iso('e.next_attempt_at')} as next_attempt_at, ${iso('e.delivered_at')} as delivered_at,
            ${iso('e.given_up_at')} as given_up_at, e.last_error,
            coalesce(a.log, '[]'::json) as delivery_attempts
       from webhook_event e
       left join lateral (
         select json_agg(json_build_object(
                  'attempt', x.attempt,
                  'attemptedAt', ${iso('x.attempted_at')},
                  'httpStatus', x.http_status,
                  'error', x.error,
                  'durationMs', x.duration_ms) order by x.attempt) as log
           from (select * from webhook_delivery_attempt
                  where event_id = e.id order by attempt desc limit ${ATTEMPTS_SHOWN}) x
       ) a on true
      where e.partner_id = ?
      order by e.created_at desc, e.id desc
      limit ?`,
    [partnerId, limit],
  );
  return rows.map((row) => ({
    id: row.id,
    type: row.type,
    operationType: row.operation_type,
    operationId: row.operation_id,
    sequence: row.sequence,
    deliveryStatus: row.delivered_at ? 'delivered' : row.given_up_at ? 'given-up' : 'pending',
    attempts: row.attempts,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
    givenUpAt: row.given_up_at,
    nextAttemptAt: row.delivered_at || row.given_up_at ? null : row.next_attempt_at,
    lastError: row.last_error,
    payload: row.payload,
    deliveryAttempts: row.delivery_attempts,
  }));
}
