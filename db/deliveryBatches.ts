import type { Knex } from 'knex';
import type { EmailRow } from './emails';

/**
 * The rows of /v1/send's batched hand-off (temporal/workflows/deliverEmailBatch/): every email a
 * request commits names, in `delivery_workflow`, the batch workflow that delivers it. The batch's
 * activity finds its rows by that name, so a retried attempt or a run the sweep started again
 * sees exactly the batch's emails whatever its input says. Its claim and outcomes are db/emailStates'
 * (claimRendered; markHandedOver, markFailed, releaseClaim with no campaign).
 */

export async function batchEmails(knex: Knex, workflowId: string): Promise<EmailRow[]> {
  return knex<EmailRow>('emails').where({ delivery_workflow: workflowId }).orderBy('id');
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
