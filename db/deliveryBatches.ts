import type { Knex } from 'knex';
import type { EmailRow } from './emails';
import { binaryTextArray } from './binaryArrays';

/**
 * The rows of /v1/send's batched hand-off (temporal/workflows/deliverEmailBatch.ts): every email a
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
 * rendered subject, body and text part (or to FAILED with their render error). Rows another attempt moved
 * meanwhile are left alone; the answer lists the ids this call claimed for sending.
 */
export async function claimRendered(knex: Knex, workflowId: string, rendered: RenderedEmail[], transport: string): Promise<{ claimed: EmailRow[]; unrenderable: number }> {
  if (!rendered.length) return { claimed: [], unrenderable: 0 };
  const { rows } = await knex.raw(
    `UPDATE emails e
        SET status = CASE WHEN u.error IS NULL THEN 'SENDING' ELSE 'FAILED' END,
            transport = CASE WHEN u.error IS NULL THEN :transport END,
            rendered_subject = u.subject, rendered_body = u.body, rendered_text = u.text,
            error = CASE WHEN u.error IS NULL THEN NULL ELSE 'render failed: ' || u.error END,
            updated_at = now()
       FROM unnest(:ids::text[], :subjects::text[], :bodies::text[], :texts::text[], :errors::text[]) AS u(id, subject, body, text, error)
      WHERE e.id = u.id::uuid AND e.delivery_workflow = :workflowId AND e.status = 'QUEUED'
      RETURNING e.*`,
    {
      transport,
      workflowId,
      ids: binaryTextArray(rendered.map((r) => r.id)),
      subjects: binaryTextArray(rendered.map((r) => ('error' in r ? null : r.subject))),
      bodies: binaryTextArray(rendered.map((r) => ('error' in r ? null : r.body))),
      texts: binaryTextArray(rendered.map((r) => ('error' in r ? null : r.text))),
      errors: binaryTextArray(rendered.map((r) => ('error' in r ? r.error : null))),
    },
  );
  return { claimed: rows.filter((r: EmailRow) => r.status === 'SENDING'), unrenderable: rows.filter((r: EmailRow) => r.status === 'FAILED').length };
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
