import type { Knex } from 'knex';
import { SUPPRESSED_REASON, type EmailRow } from './emails';
import { suppressedEventsSql, suppressedEventBindings, suppressedSql, type SuppressedEvent } from './suppressions';
import { binaryTextArray } from './binaryArrays';

/**
 * The rows of /v1/send's batched hand-off (temporal/workflows/deliverEmailBatch/): every email a
 * request commits names, in `delivery_workflow`, the batch workflow that delivers it. The batch's
 * activity finds its rows by that name, so a retried attempt or a run the sweep started again
 * sees exactly the batch's emails whatever its input says. Outcomes reuse the set-based statements
 * of campaign groups (db/campaignEmails markHandedOver, markFailed, releaseClaim with no campaign).
 */

export async function batchEmails(knex: Knex, workflowId: string): Promise<EmailRow[]> {
  return knex<EmailRow>('emails').where({ delivery_workflow: workflowId }).orderBy('id');
}

/** One QUEUED row rendered for hand-over, or the reason it could not be. */
export type RenderedEmail = { id: string; subject: string; body: string; text: string } | { id: string; error: string };

/**
 * The hand-over claim of a batch, in one statement: QUEUED rows move to SENDING with their
 * rendered subject, body and text part (or to FAILED with their render error, or to SUPPRESSED when
 * the recipient is on the project's suppression list, recording `email.suppressed` with it). Rows
 * another attempt moved meanwhile are left alone; the answer lists the rows this call claimed for
 * sending and the suppressed rows' events, for routing.
 */
export async function claimRendered(
  knex: Knex,
  workflowId: string,
  rendered: RenderedEmail[],
  transport: string,
): Promise<{ claimed: EmailRow[]; unrenderable: number; suppressed: number; events: SuppressedEvent[] }> {
  if (!rendered.length) return { claimed: [], unrenderable: 0, suppressed: 0, events: [] };
  const { rows } = await knex.raw(
    `WITH claimed AS (
       UPDATE emails e
          SET status = CASE WHEN u.error IS NOT NULL THEN 'FAILED' WHEN ${suppressedSql('e.project_id', 'e.to_email')} THEN 'SUPPRESSED' ELSE 'SENDING' END,
              transport = CASE WHEN u.error IS NULL AND NOT ${suppressedSql('e.project_id', 'e.to_email')} THEN :transport END,
              rendered_subject = u.subject, rendered_body = u.body, rendered_text = u.text,
              error = CASE WHEN u.error IS NOT NULL THEN 'render failed: ' || u.error WHEN ${suppressedSql('e.project_id', 'e.to_email')} THEN :suppressedReason END,
              updated_at = now()
         FROM unnest(:ids::text[], :subjects::text[], :bodies::text[], :texts::text[], :errors::text[]) AS u(id, subject, body, text, error)
        WHERE e.id = u.id::uuid AND e.delivery_workflow = :workflowId AND e.status = 'QUEUED'
        RETURNING e.*),
     suppressed_events AS (${suppressedEventsSql('claimed')})
     SELECT claimed.*, (SELECT coalesce(json_agg(suppressed_events), '[]') FROM suppressed_events) AS suppressed_events FROM claimed`,
    {
      transport,
      workflowId,
      suppressedReason: SUPPRESSED_REASON,
      ids: binaryTextArray(rendered.map((r) => r.id)),
      subjects: binaryTextArray(rendered.map((r) => ('error' in r ? null : r.subject))),
      bodies: binaryTextArray(rendered.map((r) => ('error' in r ? null : r.body))),
      texts: binaryTextArray(rendered.map((r) => ('error' in r ? null : r.text))),
      errors: binaryTextArray(rendered.map((r) => ('error' in r ? r.error : null))),
      ...suppressedEventBindings(rendered.map((r) => r.id)),
    },
  );
  const events: SuppressedEvent[] = rows[0]?.suppressed_events ?? [];
  const out = (rows as Array<EmailRow & { suppressed_events?: unknown }>).map(({ suppressed_events: _e, ...row }) => row as EmailRow);
  return {
    claimed: out.filter((r) => r.status === 'SENDING'),
    unrenderable: out.filter((r) => r.status === 'FAILED').length,
    suppressed: out.filter((r) => r.status === 'SUPPRESSED').length,
    events,
  };
}

/** Emails of batches still QUEUED `minutes` after they were written (an API crash kept the batch from starting), by batch. */
export async function orphanedBatches(db: Knex, minutes: number, limit: number): Promise<Array<{ workflowId: string; projectId: string; emailIds: string[] }>> {
  const { rows } = await db.raw(
    `SELECT delivery_workflow AS "workflowId", min(project_id::text) AS "projectId", array_agg(id::text ORDER BY id) AS "emailIds"
       FROM emails
      WHERE status = 'QUEUED' AND delivery_workflow IS NOT NULL AND created_at < now() - make_interval(mins => ?)
      GROUP BY delivery_workflow
      ORDER BY min(created_at)
      LIMIT ?`,
    [minutes, limit],
  );
  return rows;
}
