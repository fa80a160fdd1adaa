import { randomBytes } from 'node:crypto';
import type { QueryResult } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../../core/errors';
import { checkWebhookTarget, webhookUrlOf } from '../../core/webhook-target';
import type { HostResolver, WebhookTargetPolicy } from '../../core/webhook-target';
import { requirePartner } from './partner.service';

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

/** What the target check at registration is given: the rules, and how names are resolved. */
export interface WebhookTargetRules {
  policy: WebhookTargetPolicy;
  resolve: HostResolver;
}

/** A registration does not wait longer than this for DNS: a name without an answer is checked at delivery. */
const REGISTRATION_LOOKUP_TIMEOUT_MS = 5_000;

/** The URL as stored, its host and resolved addresses public; a name that does not resolve yet is checked at delivery. */
async function checkedWebhookUrl(urlText: string, targets: WebhookTargetRules): Promise<string> {
  const url = webhookUrlOf(urlText, targets.policy);
  const checked = await checkWebhookTarget(url, targets.policy, targets.resolve, AbortSignal.timeout(REGISTRATION_LOOKUP_TIMEOUT_MS));
  if ('problem' in checked && checked.problem === 'refused') {
    throw new DomainError('invalid-request', `the webhook URL's host ${checked.message}`);
  }
  return url.href;
}

/** Registers or replaces the partner's endpoint with a fresh secret; events not yet delivered go there, newly signed. */
export async function setWebhookEndpoint(
  em: EntityManager,
  partnerId: string,
  urlText: string,
  now: Date,
  targets: WebhookTargetRules,
): Promise<WebhookEndpointSet> {
  const url = await checkedWebhookUrl(urlText, targets);
  await requirePartner(em, partnerId);
  const secret = `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;
  // One statement, so two concurrent registrations cannot both insert; xmax = 0 only on an insert.
  const [row] = await em.execute<Array<{ inserted: boolean }>>(
    `insert into webhook_endpoint (partner_id, url, secret, created_at, updated_at) values (?, ?, ?, ?, ?)
     on conflict (partner_id) do update set url = excluded.url, secret = excluded.secret, updated_at = excluded.updated_at
     returning (xmax = 0) as inserted`,
    [partnerId, url, secret, now, now],
  );
  return { partnerId, url, secret, rotated: row?.inserted === false };
}

/** Removes the partner's endpoint; its undelivered events are given up (they stay in the delivery log). */
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
