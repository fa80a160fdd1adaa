import { randomBytes } from 'node:crypto';
import type { QueryResult } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../../core/errors';
import { requirePartner } from './partner.service';

/** What the webhook_endpoint.url column holds at most. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** Standard Webhooks secrets: `whsec_` and the base64 of the key; 32 random bytes (the scheme asks for 24 to 64). */
const SECRET_BYTES = 32;

export interface WebhookEndpointSet {
  partnerId: string;
  url: string;
  /** Shown once, here; never again, never logged. */
  secret: string;
  /** True when an endpoint existed: its secret is replaced, the old one signs nothing from now on. */
  rotated: boolean;
}

/**
 * The URL as stored: absolute, HTTPS (plain HTTP only to a loopback address, for local testing),
 * no credentials, no fragment, at most 2048 characters. Throws invalid-request saying what is wrong.
 */
export function webhookUrlOf(text: string): string {
  if (text.length === 0 || text.length > MAX_WEBHOOK_URL_LENGTH) throw invalid(`must be 1 to ${MAX_WEBHOOK_URL_LENGTH} characters`);
  // The URL parser would silently drop tabs and newlines: refuse them instead.
  if (/[\s\p{Cc}]/u.test(text)) throw invalid('must not contain spaces or control characters');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid('must be an absolute URL, such as https://example.com/webhooks');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
    throw invalid('must use https:// (plain http:// only for a loopback address: 127.0.0.0/8, ::1 or localhost)');
  }
  if (url.username || url.password) throw invalid('must not carry credentials (user:password@)');
  if (url.hash) throw invalid('must not have a fragment (#…)');
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH) throw invalid(`must be at most ${MAX_WEBHOOK_URL_LENGTH} characters once normalised`);
  return url.href;
}

/** The URL parser has already normalised the host (lower case, IPv4 in dotted decimal, IPv6 in brackets). */
function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

function invalid(rule: string): DomainError {
  return new DomainError('invalid-request', `the webhook URL ${rule}`);
}

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/**
 * Registers the partner's endpoint, or replaces its URL, with a fresh secret either way. Events
 * not delivered yet go to the new URL, signed with the new secret.
 */
export async function setWebhookEndpoint(em: EntityManager, partnerId: string, urlText: string, now: Date): Promise<WebhookEndpointSet> {
  const url = webhookUrlOf(urlText);
  await requirePartner(em, partnerId);
  const secret = newWebhookSecret();
  // One statement, so two concurrent registrations cannot both insert; xmax = 0 only on an insert.
  const [row] = await em.execute<Array<{ inserted: boolean }>>(
    `insert into webhook_endpoint (partner_id, url, secret, created_at, updated_at) values (?, ?, ?, ?, ?)
     on conflict (partner_id) do update set url = excluded.url, secret = excluded.secret, updated_at = excluded.updated_at
     returning (xmax = 0) as inserted`,
    [partnerId, url, secret, now, now],
  );
  return { partnerId, url, secret, rotated: row?.inserted === false };
}

/**
 * Removes the partner's endpoint: no new events are written for it, and the ones not delivered
 * yet are given up (they stay in the delivery log).
 */
export async function removeWebhookEndpoint(
  em: EntityManager,
  partnerId: string,
  now: Date,
): Promise<{ partnerId: string; removed: boolean; eventsGivenUp: number }> {
  const removed = await em.execute<QueryResult>('delete from webhook_endpoint where partner_id = ?', [partnerId], 'run');
  const givenUp = await em.execute<QueryResult>(
    `update webhook_event set given_up_at = ?, claimed_until = null, last_error = 'endpoint removed'
      where partner_id = ? and delivered_at is null and given_up_at is null`,
    [now, partnerId],
    'run',
  );
  return { partnerId, removed: removed.affectedRows > 0, eventsGivenUp: givenUp.affectedRows };
}
