import type { ActivityDeps } from '.';
import { pruneIdempotencyKeys } from '../db/idempotency';
import { pruneRateLimits } from '../db/rateLimit';
import { startEventRouting } from '../temporal/events';
import { startDelivery } from '../temporal/deliveries';
import { stalledWebhookEndpoints } from '../db/webhookEndpoints';
import { wakeWebhookEndpoints } from '../services/webhooks/handOff';

/** Work older than this without progress is assumed orphaned by a crash between commit and start. */
const ORPHAN_AFTER = "interval '2 minutes'";
const SWEEP_BATCH = 500;

export function maintenanceActivities(deps: ActivityDeps) {
  const { knex } = deps;
  return {
    async pruneExpired(): Promise<{ idempotencyKeys: number; rateLimitWindows: number }> {
      return { idempotencyKeys: await pruneIdempotencyKeys(knex), rateLimitWindows: await pruneRateLimits(knex) };
    },

    /**
     * The API commits an event or email and then starts its workflow; a crash in between leaves it
     * unstarted. Starting again under the same deterministic id is a no-op for the ones that did start.
     */
    async resumeOrphans(): Promise<{ events: number; emails: number; webhookEndpoints: number }> {
      const events = await knex('events')
        .whereNull('routed_at')
        .where('created_at', '<', knex.raw(`now() - ${ORPHAN_AFTER}`))
        .orderBy('created_at')
        .limit(SWEEP_BATCH)
        .select('id', 'project_id', 'contact_id', 'name');
      await startEventRouting(deps.temporal, events);
      const emails = await knex('emails')
        .where({ status: 'QUEUED' })
        .whereNull('campaign_id')
        .where('created_at', '<', knex.raw(`now() - ${ORPHAN_AFTER}`))
        .orderBy('created_at')
        .limit(SWEEP_BATCH)
        .select('id', 'project_id', 'contact_id', 'to_email');
      for (const e of emails) await startDelivery(deps.temporal, { id: e.id, projectId: e.project_id, contactId: e.contact_id, to: e.to_email });
      // Due webhook messages that sat still: their endpoint's wake-up was lost (or its run failed).
      const endpoints = await stalledWebhookEndpoints(knex, 2 * 60_000, SWEEP_BATCH);
      await wakeWebhookEndpoints(deps.temporal, endpoints);
      return { events: events.length, emails: emails.length, webhookEndpoints: endpoints.length };
    },
  };
}
