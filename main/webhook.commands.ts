import { z } from 'zod';
import { findWebhookDeliveryLog } from '../db/queries/webhook-delivery-log.queries';
import { WebhookEndpoint } from '../db/entities/webhook-endpoint.entity';
import { removeWebhookEndpoint, setWebhookEndpoint } from '../db/services/webhook-endpoint.service';
import type { WebhookTargetRules } from '../db/services/webhook-endpoint.service';
import { systemHostResolver } from '../core/webhook-target';
import type { Settings } from '../core/settings';
import { requirePartner } from '../db/services/partner.service';
import type { Command } from './ops-command';
import { command, limitFlag, uuidFlag } from './ops-command';

/** The webhook commands of the operator CLI (main/ops.cli.ts), each run in one transaction with its audit row. */
export const WEBHOOK_USAGE = `  webhook set --partner ID --url URL      (prints the signing secret, once; again = a new secret)
  webhook remove --partner ID
  webhook deliveries --partner ID [--limit N]`;

/** Events per page of the log; each comes with its attempts. */
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 500;

export const webhookCommands: Record<string, Command> = {
  'webhook set': command({
    changesState: true,
    flags: { partner: uuidFlag, url: z.string('is required') },
    async run({ em, flags, now, settings }) {
      const set = await setWebhookEndpoint(em, flags.partner, flags.url, now, webhookTargets(settings));
      return {
        output: set,
        audit: {
          action: 'webhook-set',
          subject: { type: 'webhook-endpoint', id: set.partnerId, partnerId: set.partnerId },
          // Never the secret; the URL without its query, which may carry a token of the partner's.
          details: { url: withoutQuery(set.url), rotated: set.rotated },
        },
      };
    },
  }),

  'webhook remove': command({
    changesState: true,
    flags: { partner: uuidFlag },
    async run({ em, flags, now }) {
      const removed = await removeWebhookEndpoint(em, flags.partner, now);
      return {
        output: removed,
        audit: {
          action: 'webhook-remove',
          subject: { type: 'webhook-endpoint', id: removed.partnerId, partnerId: removed.partnerId },
          details: { removed: removed.removed, eventsGivenUp: removed.eventsGivenUp },
        },
      };
    },
  }),

  'webhook deliveries': command({
    changesState: false,
    flags: {
      partner: uuidFlag,
      limit: limitFlag(MAX_LIMIT),
    },
    async run({ em, flags }) {
      await requirePartner(em, flags.partner);
      const endpoint = await em.findOne(WebhookEndpoint, { partnerId: flags.partner });
      const events = await findWebhookDeliveryLog(em, flags.partner, flags.limit ?? DEFAULT_LIMIT);
      return {
        partnerId: flags.partner,
        // Never the secret: it was shown once, by `webhook set`.
        endpoint: endpoint && {
          url: endpoint.url,
          createdAt: endpoint.createdAt.toISOString(),
          updatedAt: endpoint.updatedAt.toISOString(),
        },
        events,
      };
    },
  }),
};

/** The URL as stored, without its query string. */
function withoutQuery(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

/** Without DATABASE_URL this is `npm start`'s database, whose worker delivers to loopback receivers. */
function webhookTargets(settings: Settings): WebhookTargetRules {
  return { policy: { allowLoopback: settings.webhookAllowLoopback || settings.databaseUrl === undefined }, resolve: systemHostResolver };
}
