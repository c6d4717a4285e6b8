import type { ActivityDeps } from './deps';
import { pruneIdempotencyKeys } from '../db/idempotency';
import { pruneRateLimits } from '../db/rateLimit';
import { pruneAuthThrottle } from '../db/authThrottle';
import { pruneExpiredConfirmations } from '../db/doubleOptIn';
import { unroutedEvents } from '../db/events';
import { orphanedQueuedEmails } from '../db/emails';
import { startEventRouting } from '../services/events';
import { startDelivery } from '../services/deliveries';
import { startDeliveryBatch } from '../services/deliveryBatcher';
import { orphanedBatches } from '../db/deliveryBatches';
import { stalledWebhookEndpoints } from '../db/webhookEndpoints';
import { wakeWebhookEndpoints } from '../services/webhooks/handOff';
import { resumeErasures } from '../services/erasure';
import { pruneContactExports } from '../db/contactExport';
import { overdueScheduledMinutes } from '../db/scheduledSends';
import { wakeMinute } from '../services/scheduledSends';
import { ensureEventPartitions, EVENT_PARTITION_MONTHS_AHEAD } from '../db/eventPartitions';

/** Work older than this without progress is assumed orphaned by a crash between commit and start. */
const ORPHAN_AFTER_MINUTES = 2;
const SWEEP_BATCH = 500;

export function maintenanceActivities(deps: ActivityDeps) {
  const { knex } = deps;
  return {
    /** The events partitions of this month and the next EVENT_PARTITION_MONTHS_AHEAD (docs/capacity.md); idempotent. */
    async ensurePartitionsAhead(): Promise<{ created: string[] }> {
      return { created: await ensureEventPartitions(knex, EVENT_PARTITION_MONTHS_AHEAD) };
    },

    async pruneExpired(): Promise<{
      idempotencyKeys: number;
      rateLimitWindows: number;
      authThrottles: number;
      confirmations: number;
      contactExports?: number;
    }> {
      return {
        idempotencyKeys: await pruneIdempotencyKeys(knex),
        rateLimitWindows: await pruneRateLimits(knex),
        authThrottles: await pruneAuthThrottle(knex),
        confirmations: await pruneExpiredConfirmations(knex),
        contactExports: await pruneContactExports(knex),
      };
    },

    /**
     * The API commits an event or email and then starts its workflow; a crash in between leaves it
     * unstarted. Starting again under the same deterministic id is a no-op for the ones that did start.
     */
    async resumeOrphans(): Promise<{
      events: number;
      emails: number;
      batches: number;
      webhookEndpoints: number;
      erasures?: number;
      scheduledMinutes?: number;
    }> {
      const events = await unroutedEvents(knex, ORPHAN_AFTER_MINUTES, SWEEP_BATCH);
      await startEventRouting(deps.temporal, events);
      const emails = await orphanedQueuedEmails(knex, ORPHAN_AFTER_MINUTES, SWEEP_BATCH);
      for (const e of emails)
        await startDelivery(deps.temporal, {
          id: e.id,
          projectId: e.project_id,
          contactId: e.contact_id,
          source: 'maintenance sweep (delivery never started)',
        });
      // /v1/send batches go again under the id their rows name: a no-op for one that did start
      // (however few of its rows the query found), and a new run for one that failed for good.
      const batches = await orphanedBatches(knex, ORPHAN_AFTER_MINUTES, SWEEP_BATCH);
      for (const b of batches) await startDeliveryBatch(deps.temporal, { ...b, source: 'maintenance sweep (batch never started)' });
      // Due webhook messages that sat still: their endpoint's wake-up was lost (or its run failed).
      const endpoints = await stalledWebhookEndpoints(knex, 2 * 60_000, SWEEP_BATCH);
      await wakeWebhookEndpoints(deps.temporal, endpoints);
      // Erased contacts whose executions' cancellation a crash cut short (services/erasure).
      const erasures = await resumeErasures(deps, ORPHAN_AFTER_MINUTES * 60, SWEEP_BATCH);
      // Scheduled emails overdue: their minute's workflow was never woken (the API died after the commit).
      const minutes = await overdueScheduledMinutes(knex, ORPHAN_AFTER_MINUTES, SWEEP_BATCH);
      for (const m of minutes) await wakeMinute(deps.temporal, m.projectId, m.minute);
      return {
        events: events.length,
        emails: emails.length,
        batches: batches.length,
        webhookEndpoints: endpoints.length,
        erasures,
        scheduledMinutes: minutes.length,
      };
    },
  };
}
