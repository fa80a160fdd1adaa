/** How the dispatcher delivers and retries webhook events. */
export interface WebhookDeliveryPolicy {
  /** The wait after the first failed attempt; it doubles with each failure. */
  retryBaseMs: number;
  /** The longest wait between two attempts. */
  retryMaxMs: number;
  /** An event still failing this long after it was written is given up (it stays in the log). */
  giveUpAfterMs: number;
  /** One POST, answer included. */
  requestTimeoutMs: number;
  /** Deliveries under way at once, each of a different operation. */
  maxConcurrent: number;
  /** Deliveries under way at once to one partner, counted over every dispatcher's claims. */
  maxConcurrentPerPartner: number;
  /** How often an idle dispatcher looks at the outbox. */
  idlePollMs: number;
  /** How long a claim holds an event: longer than any delivery and its record, short enough to recover from a crash quickly. */
  claimMs: number;
}

/** Five seconds doubling to an hour, jittered, for 25 hours: a receiver down for a day still gets every event (about 35 attempts). */
export const DEFAULT_WEBHOOK_DELIVERY_POLICY: WebhookDeliveryPolicy = {
  retryBaseMs: 5_000,
  retryMaxMs: 60 * 60_000,
  giveUpAfterMs: 25 * 60 * 60_000,
  requestTimeoutMs: 10_000,
  maxConcurrent: 16,
  // An endpoint that never answers holds a slot for requestTimeoutMs per event: with 4 of 16 it
  // cannot starve the other partners, and a healthy partner's operations still go out in parallel.
  maxConcurrentPerPartner: 4,
  idlePollMs: 500,
  claimMs: 60_000,
};

/** The default policy with what is given (undefined values keep the default). */
export function webhookDeliveryPolicy(overrides: Partial<WebhookDeliveryPolicy> = {}): WebhookDeliveryPolicy {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
  return { ...DEFAULT_WEBHOOK_DELIVERY_POLICY, ...defined };
}

/** The wait after failed attempt `attempt` (1-based): base × 2^(attempt−1), capped, ±20 % so retries to a recovered endpoint spread. */
export function retryDelayMs(attempt: number, policy: WebhookDeliveryPolicy, random: () => number = Math.random): number {
  const exponential = policy.retryBaseMs * 2 ** Math.min(Math.max(attempt - 1, 0), 40);
  const jittered = Math.min(exponential, policy.retryMaxMs) * (0.8 + 0.4 * random());
  return Math.max(1, Math.min(Math.round(jittered), policy.retryMaxMs));
}

/** After a failed attempt: when to try again, or give up once the event is older than the policy allows. */
export function afterFailedAttempt(
  event: { createdAt: Date; attempts: number },
  now: Date,
  policy: WebhookDeliveryPolicy,
  random: () => number = Math.random,
): { retryAt: Date } | { givenUp: Date } {
  if (now.getTime() - event.createdAt.getTime() >= policy.giveUpAfterMs) return { givenUp: now };
  return { retryAt: new Date(now.getTime() + retryDelayMs(event.attempts + 1, policy, random)) };
}
