import type { Knex } from 'knex';

/**
 * How long a project keeps what it accumulates (docs/privacy.md "Retention"), in days; null keeps it.
 * Stored on `projects.retention`; a project that never set it keeps everything.
 */
export interface RetentionSettings {
  emailBodiesDays: number | null;
  eventsDays: number | null;
  inboundDays: number | null;
}

export const KEEP_EVERYTHING: RetentionSettings = { emailBodiesDays: null, eventsDays: null, inboundDays: null };

export async function retentionSettings(db: Knex, projectId: string): Promise<RetentionSettings | undefined> {
  const row = await db('projects').where({ id: projectId }).first('retention');
  return row && { ...KEEP_EVERYTHING, ...(row.retention ?? {}) };
}

/** Changes only the keys given (null turns one back to "keep"); undefined when the project is gone. */
export async function updateRetentionSettings(db: Knex, projectId: string, patch: Partial<RetentionSettings>): Promise<RetentionSettings | undefined> {
  const [row] = await db('projects')
    .where({ id: projectId })
    .update({ retention: db.raw("coalesce(retention, '{}'::jsonb) || ?::jsonb", [JSON.stringify(patch)]), updated_at: db.fn.now() })
    .returning('retention');
  return row && { ...KEEP_EVERYTHING, ...row.retention };
}

/** Projects with at least one limit set: the only ones the sweep visits. */
export async function projectsWithRetention(db: Knex): Promise<string[]> {
  return db('projects')
    .whereRaw(`(retention->>'emailBodiesDays') IS NOT NULL OR (retention->>'eventsDays') IS NOT NULL OR (retention->>'inboundDays') IS NOT NULL`)
    .orderBy('id')
    .pluck('id');
}

/**
 * Emails still on their way need their content: only emails past the hand-over (or refused) lose it.
 * Statuses, timestamps and the campaign's counters stay, so campaign stats do not move.
 */
const SETTLED = "status NOT IN ('QUEUED', 'SENDING')";

/**
 * Removes the content of up to `limit` settled emails created before `cutoff`: the bodies as
 * written and as rendered, the text parts, the template variables and the attachments. The row
 * stays (recipient, subject, status, timestamps and tracked links, which old clicks still follow).
 */
export async function pruneEmailBodies(trx: Knex.Transaction, projectId: string, cutoff: Date, limit: number): Promise<number> {
  const { rows } = await trx.raw(
    `WITH due AS (
       SELECT id FROM emails
        WHERE project_id = ? AND created_at < ? AND content_pruned_at IS NULL AND ${SETTLED}
        ORDER BY created_at LIMIT ? FOR UPDATE SKIP LOCKED
     ), attachments AS (
       DELETE FROM email_attachments WHERE email_id IN (SELECT id FROM due)
     )
     UPDATE emails e SET body = '', text = NULL, rendered_body = NULL, rendered_text = NULL, variables = '{}'::jsonb, content_pruned_at = now()
       FROM due WHERE e.id = due.id
     RETURNING e.id`,
    [projectId, cutoff, limit],
  );
  return rows.length;
}

/**
 * Deletes up to `limit` routed events created before `cutoff`. Unrouted ones wait for the
 * maintenance sweep to route them. `contact.unsubscribed` events stay: a campaign's `unsubscribed`
 * figure counts them (db/campaignStats.ts campaignStats), and they are few.
 */
export async function pruneEvents(trx: Knex.Transaction, projectId: string, cutoff: Date, limit: number): Promise<number> {
  const { rowCount } = await trx.raw(
    `DELETE FROM events WHERE id IN (
       SELECT id FROM events
        WHERE project_id = ? AND created_at < ? AND routed_at IS NOT NULL AND name <> 'contact.unsubscribed'
        ORDER BY created_at LIMIT ? FOR UPDATE SKIP LOCKED)`,
    [projectId, cutoff, limit],
  );
  return rowCount ?? 0;
}

/**
 * Deletes up to `limit` claims of derived event ids (db/eventKeys.ts) older than `cutoff`: their
 * events are past the window too, and a writer retrying that late is not expected.
 */
export async function pruneEventKeys(trx: Knex.Transaction, projectId: string, cutoff: Date, limit: number): Promise<number> {
  const { rowCount } = await trx.raw(
    `DELETE FROM event_keys WHERE id IN (SELECT id FROM event_keys WHERE project_id = ? AND created_at < ? ORDER BY created_at LIMIT ? FOR UPDATE SKIP LOCKED)`,
    [projectId, cutoff, limit],
  );
  return rowCount ?? 0;
}

/** Each project's events window, for the partitions retention may drop whole (db/eventPartitions.ts). */
export async function eventRetentionDays(db: Knex): Promise<Array<{ id: string; days: number }>> {
  const { rows } = await db.raw(`SELECT id, (retention->>'eventsDays')::float8 AS days FROM projects WHERE (retention->>'eventsDays') IS NOT NULL`);
  return rows;
}

/** Deletes up to `limit` inbound messages (replies, bounces and reports as received) created before `cutoff`. */
export async function pruneInbound(trx: Knex.Transaction, projectId: string, cutoff: Date, limit: number): Promise<number> {
  const { rowCount } = await trx.raw(
    `DELETE FROM inbound_messages WHERE id IN (
       SELECT id FROM inbound_messages WHERE project_id = ? AND created_at < ? ORDER BY created_at LIMIT ? FOR UPDATE SKIP LOCKED)`,
    [projectId, cutoff, limit],
  );
  return rowCount ?? 0;
}
