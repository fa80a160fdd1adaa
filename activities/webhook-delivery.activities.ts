import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import type { WebhookDeliveryRound, WebhookDeliveryRoundResult } from '../contracts';
import { claimDueWebhookEvents, recordWebhookAttempt, releaseWebhookClaims } from '../db/queries/webhook-outbox.queries';
import type { ClaimedWebhookEvent } from '../db/queries/webhook-outbox.queries';
import type { ActivityDependencies } from './dependencies';
import { afterFailedAttempt, webhookDeliveryPolicy } from './webhook-retry';
import type { WebhookDeliveryPolicy } from './webhook-retry';
import { postWebhook, signWebhookRequest } from './webhook-sender';
import type { SignedWebhookRequest, WebhookPostOutcome, WebhookTargets } from './webhook-sender';
import { systemHostResolver } from '../core/webhook-target';
import type { HostResolver, WebhookTargetPolicy } from '../core/webhook-target';

export type WebhookDeliveryDependencies = Pick<ActivityDependencies, 'pool' | 'clock' | 'log'> & {
  /** The retry base comes from WEBHOOK_RETRY_BASE_MS; the rest keeps its default. */
  webhookDelivery?: Partial<WebhookDeliveryPolicy>;
  /**
   * Which targets a delivery may reach: loopback only with WEBHOOK_ALLOW_LOOPBACK (absent: never);
   * names resolved by the system unless a test hands in its own resolver.
   */
  webhookTargets?: WebhookTargetPolicy & { resolve?: HostResolver };
};

export function createWebhookDeliveryActivities(deps: WebhookDeliveryDependencies) {
  const policy = webhookDeliveryPolicy(deps.webhookDelivery);
  const targets: WebhookTargets = {
    policy: { allowLoopback: deps.webhookTargets?.allowLoopback ?? false },
    resolve: deps.webhookTargets?.resolve ?? systemHostResolver,
  };

  /** A row that cannot be signed (the database's checks should make that impossible) fails its attempts like an endpoint would. */
  async function send(event: ClaimedWebhookEvent, attemptedAt: Date, stop: AbortSignal): Promise<WebhookPostOutcome> {
    let request: SignedWebhookRequest;
    try {
      request = signWebhookRequest(event.payload, event.secret, attemptedAt);
    } catch (error) {
      return { httpStatus: null, error: `the event cannot be signed: ${String(error)}`.slice(0, 500), durationMs: 0, interrupted: false };
    }
    return postWebhook(event.url, request, { timeoutMs: policy.requestTimeoutMs, stop, targets });
  }

  /** Sends one claimed event and records the outcome; never throws (a lost record only means a later retry). */
  async function deliver(event: ClaimedWebhookEvent, stop: AbortSignal, totals: WebhookDeliveryRoundResult, unsent: string[]) {
    try {
      const attemptedAt = deps.clock.now();
      const outcome = await send(event, attemptedAt, stop);
      if (outcome.interrupted) {
        // Our stop, not the endpoint's failure: handed back untouched, sent again by the next round.
        unsent.push(event.id);
        return;
      }
      const now = deps.clock.now();
      const next = outcome.error === null ? { delivered: now } : afterFailedAttempt(event, now, policy);
      await recordWebhookAttempt(deps.pool, { eventId: event.id, attemptedAt, ...outcome, next });
      if ('delivered' in next) totals.delivered += 1;
      else if ('givenUp' in next) {
        totals.givenUp += 1;
        deps.log.info(
          `webhook event ${event.id} of partner ${event.partnerId} given up after ${event.attempts + 1} attempts: ${outcome.error}`,
        );
      } else {
        totals.failedAttempts += 1;
        deps.log.debug(
          `webhook event ${event.id} attempt ${event.attempts + 1} failed (${outcome.error}); next at ${next.retryAt.toISOString()}`,
        );
      }
    } catch (error) {
      // Its claim expires and the event goes out again: at least once is the promise.
      deps.log.warn(
        `webhook event ${event.id}: the attempt could not be recorded: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  return {
    /**
     * Delivers due events from the outbox for about `roundMs`: claims the head event of each
     * operation that is due (up to maxConcurrent at once, so never two of one operation, and at
     * most maxConcurrentPerPartner of one partner, so one slow endpoint cannot hold every slot), POSTs it
     * signed, records the attempt, and claims more as deliveries finish; idle, it looks again every
     * idlePollMs. Heartbeats throughout; on cancellation (worker shutdown) it aborts what is under
     * way and hands those claims back. Safe to run twice at once: the claims keep the runs apart.
     */
    async deliverWebhookEvents(round: WebhookDeliveryRound): Promise<WebhookDeliveryRoundResult> {
      const context = Context.current();
      const stop = context.cancellationSignal;
      const endsAtMs = Date.now() + round.roundMs;
      const totals: WebhookDeliveryRoundResult = { delivered: 0, failedAttempts: 0, givenUp: 0, interrupted: false };
      const inFlight = new Map<string, Promise<void>>();
      const unsent: string[] = [];
      const stopped = new Promise<void>((resolve) => stop.addEventListener('abort', () => resolve(), { once: true }));
      // One idle timer at a time, however often deliveries finish and wake the loop.
      let idle: Promise<void> | undefined;
      try {
        while (!stop.aborted && Date.now() < endsAtMs) {
          context.heartbeat(totals);
          const free = policy.maxConcurrent - inFlight.size;
          let claimed = 0;
          if (free > 0) {
            const now = deps.clock.now();
            const events = await claimDueWebhookEvents(deps.pool, {
              now,
              limit: free,
              perPartner: policy.maxConcurrentPerPartner,
              claimUntil: new Date(now.getTime() + policy.claimMs),
            });
            for (const event of events) {
              inFlight.set(
                event.id,
                deliver(event, stop, totals, unsent).finally(() => inFlight.delete(event.id)),
              );
            }
            claimed = events.length;
          }
          // More may be due right away while slots are free; otherwise wait for a slot or the next look.
          if (claimed > 0 && inFlight.size < policy.maxConcurrent) continue;
          idle ??= sleep(policy.idlePollMs).then(() => {
            idle = undefined;
          });
          await Promise.race([idle, stopped, ...inFlight.values()]);
        }
      } finally {
        await Promise.all(inFlight.values());
        if (unsent.length > 0) await releaseWebhookClaims(deps.pool, unsent);
      }
      totals.interrupted = stop.aborted;
      return totals;
    },
  };
}
