import type { Knex } from 'knex';

/**
 * Reads of scheduled sends (their moves are db/emailStates.ts'): what a minute's workflow still
 * waits for, and what a crash may have left behind.
 */

/** The earliest `send_at` of a project's SCHEDULED emails before `before`, or null. */
export async function nextScheduledAt(knex: Knex, projectId: string, before: Date): Promise<Date | null> {
  const row = await knex('emails').where({ project_id: projectId, status: 'SCHEDULED' }).where('send_at', '<', before).min('send_at as at').first();
  return row?.at ? new Date(row.at) : null;
}

/**
 * Scheduled emails released into a batch (QUEUED, naming it) at least `seconds` ago and still
 * QUEUED: a hand-over that died between the release and the batch's start. By batch.
 */
export async function stalledScheduledBatches(knex: Knex, projectId: string, seconds: number): Promise<Array<{ workflowId: string; emailIds: string[] }>> {
  const { rows } = await knex.raw(
    `SELECT delivery_workflow AS "workflowId", array_agg(id::text ORDER BY id) AS "emailIds"
       FROM emails
      WHERE project_id = ? AND status = 'QUEUED' AND send_at IS NOT NULL AND delivery_workflow IS NOT NULL
        AND updated_at < now() - make_interval(secs => ?)
      GROUP BY delivery_workflow
      LIMIT 100`,
    [projectId, seconds],
  );
  return rows;
}

/**
 * Minutes whose SCHEDULED emails are `minutes` overdue (their workflow never started: the API died
 * between the commit and the start), one row per project and minute, for the maintenance sweep.
 */
export async function overdueScheduledMinutes(knex: Knex, minutes: number, limit: number): Promise<Array<{ projectId: string; minute: number }>> {
  const { rows } = await knex.raw(
    `SELECT project_id::text AS "projectId", (extract(epoch FROM date_trunc('minute', send_at)) * 1000)::bigint AS minute
       FROM emails
      WHERE status = 'SCHEDULED' AND send_at < now() - make_interval(mins => ?)
      GROUP BY 1, 2
      ORDER BY 2
      LIMIT ?`,
    [minutes, limit],
  );
  return rows.map((r: { projectId: string; minute: string }) => ({ projectId: r.projectId, minute: Number(r.minute) }));
}
