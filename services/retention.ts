import type { Knex } from 'knex';
import { eventRetentionDays, pruneEmailBodies, pruneEventKeys, pruneEvents, pruneInbound, retentionSettings } from '../db/retention';
import { dropExpiredEventPartitions, type DroppedPartition } from '../db/eventPartitions';
import { recordAudit, SYSTEM_ACTOR } from '../db/auditLog';

const DAY_MS = 86_400_000;

/** What one round removed in one project; `more` when a kind filled its batch (the next round goes on). */
export interface PruneRound {
  emailBodies: number;
  events: number;
  inbound: number;
  more: boolean;
}

/**
 * One round of a project's retention: up to `batch` rows of each kind, in one transaction with its
 * audit entry (`retention.prune`, actor `system`), so the log records exactly what went. Running it
 * again removes only what is still due: a retried activity is harmless. `timeScale` shortens a day
 * as WORKFLOW_TIME_SCALE does for workflow waits (tests).
 */
export async function pruneRound(knex: Knex, projectId: string, opts: { batch: number; timeScale: number; now?: number }): Promise<PruneRound> {
  const settings = await retentionSettings(knex, projectId);
  if (!settings) return { emailBodies: 0, events: 0, inbound: 0, more: false };
  const now = opts.now ?? Date.now();
  const cutoff = (days: number) => new Date(now - days * DAY_MS * opts.timeScale);
  return knex.transaction(async (trx) => {
    const removed = {
      emailBodies: settings.emailBodiesDays === null ? 0 : await pruneEmailBodies(trx, projectId, cutoff(settings.emailBodiesDays), opts.batch),
      events: settings.eventsDays === null ? 0 : await pruneEvents(trx, projectId, cutoff(settings.eventsDays), opts.batch),
      inbound: settings.inboundDays === null ? 0 : await pruneInbound(trx, projectId, cutoff(settings.inboundDays), opts.batch),
    };
    const keys = settings.eventsDays === null ? 0 : await pruneEventKeys(trx, projectId, cutoff(settings.eventsDays), opts.batch);
    if (removed.emailBodies + removed.events + removed.inbound > 0) {
      await recordAudit(trx, { projectId, actor: SYSTEM_ACTOR, action: 'retention.prune', target: { type: 'project', id: projectId }, details: { removed } });
    }
    return { ...removed, more: keys >= opts.batch || Object.values(removed).some((n) => n >= opts.batch) };
  });
}

/**
 * Drops the monthly events partitions past every project's events window (db/eventPartitions.ts):
 * a whole month goes at once instead of row by row. A partition holding rows of a project without
 * an events window, or whose window ends inside it, stays; pruneRound deletes its due rows.
 */
export async function dropExpiredPartitions(knex: Knex, opts: { timeScale: number; now?: number }): Promise<DroppedPartition[]> {
  const now = opts.now ?? Date.now();
  const cutoffs = new Map((await eventRetentionDays(knex)).map((p) => [p.id, new Date(now - p.days * DAY_MS * opts.timeScale)]));
  return dropExpiredEventPartitions(knex, cutoffs, new Date(now));
}
