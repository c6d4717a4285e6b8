import type { Knex } from 'knex';

/** An email as its "View in browser" page (api/routes/viewInBrowser.ts) shows it. */
export interface EmailView {
  subject: string | null;
  body: string | null;
  /** The content is gone for good: pruned by retention or erased with its contact (db/retention.ts, db/erasure.ts). */
  gone: boolean;
}

/** The rendered content of email `id` (of that project, when named); undefined when there is no such email. */
export async function emailView(db: Knex, id: string, projectId?: string): Promise<EmailView | undefined> {
  const row = await db('emails')
    .where({ id, ...(projectId ? { project_id: projectId } : {}) })
    .first('rendered_subject', 'subject', 'rendered_body', 'content_pruned_at', 'to_email');
  if (!row) return undefined;
  // Erasure blanks the recipient (to_email ''); retention stamps content_pruned_at.
  const gone = row.content_pruned_at !== null || row.to_email === '';
  return { subject: gone ? null : (row.rendered_subject ?? row.subject), body: gone ? null : row.rendered_body, gone };
}
