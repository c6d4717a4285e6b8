import type { ActivityDeps } from '.';
import { pruneIdempotencyKeys } from '../db/idempotency';
import { pruneRateLimits } from '../db/rateLimit';
import { startEventRouting } from '../services/events';
import { startDelivery } from '../services/deliveries';

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
    async resumeOrphans(): Promise<{ events: number; emails: number }> {
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
        .select('id', 'project_id', 'contact_id');
      for (const e of emails) await startDelivery(deps.temporal, { id: e.id, projectId: e.project_id, contactId: e.contact_id, source: 'maintenance sweep (delivery never started)' });
      return { events: events.length, emails: emails.length };
    },
  };
}
