import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { DomainError } from '../core/errors';
import { findWebhookDeliveryLog } from '../db/queries/webhook-delivery-log.queries';
import { WebhookEndpoint } from '../db/entities/webhook-endpoint.entity';
import { removeWebhookEndpoint, setWebhookEndpoint } from '../db/services/webhook-endpoint.service';
import type { WebhookTargetRules } from '../db/services/webhook-endpoint.service';
import { requirePartner } from '../db/services/partner.service';

/** The webhook commands of the operator CLI (main/ops.cli.ts), each run in one transaction. */
export const WEBHOOK_USAGE = `  webhook set --partner ID --url URL      (prints the signing secret, once; again = a new secret)
  webhook remove --partner ID
  webhook deliveries --partner ID [--limit N]`;

type Flags = Readonly<Record<string, string | boolean | undefined>>;

const partner = z.uuid('must be a UUID');
/** Events per page of the log; each comes with its attempts. */
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 500;

export const webhookCommands: Record<
  string,
  (em: EntityManager, flags: Flags, now: Date, context: { webhookTargets: WebhookTargetRules }) => Promise<object>
> = {
  async 'webhook set'(em, flags, now, context) {
    const input = parse(z.object({ partner, url: z.string('is required') }), flags);
    return setWebhookEndpoint(em, input.partner, input.url, now, context.webhookTargets);
  },

  async 'webhook remove'(em, flags, now) {
    const input = parse(z.object({ partner }), flags);
    return removeWebhookEndpoint(em, input.partner, now);
  },

  async 'webhook deliveries'(em, flags) {
    const input = parse(
      z.object({
        partner,
        limit: z
          .string()
          .regex(/^\d{1,4}$/, `must be a whole number from 1 to ${MAX_LIMIT}`)
          .transform(Number)
          .refine((value) => value >= 1 && value <= MAX_LIMIT, `must be a whole number from 1 to ${MAX_LIMIT}`)
          .optional(),
      }),
      flags,
    );
    await requirePartner(em, input.partner);
    const endpoint = await em.findOne(WebhookEndpoint, { partnerId: input.partner });
    const events = await findWebhookDeliveryLog(em, input.partner, input.limit ?? DEFAULT_LIMIT);
    return {
      partnerId: input.partner,
      // Never the secret: it was shown once, by `webhook set`.
      endpoint: endpoint && { url: endpoint.url, createdAt: endpoint.createdAt.toISOString(), updatedAt: endpoint.updatedAt.toISOString() },
      events,
    };
  },
};

/** Only the flags a command declares: a stray one (a typo) is an error, not ignored. */
function parse<Shape extends z.ZodRawShape>(schema: z.ZodObject<Shape>, flags: Flags): z.output<z.ZodObject<Shape>> {
  const given = Object.fromEntries(Object.entries(flags).filter(([, value]) => value !== undefined));
  const result = schema.strict().safeParse(given);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) =>
    issue.code === 'unrecognized_keys'
      ? `${issue.keys.map((key) => `--${key}`).join(', ')} does not apply here`
      : `--${issue.path.join('.')} ${issue.message}`,
  );
  throw new DomainError('invalid-request', problems.join('; '));
}
