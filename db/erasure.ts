import type { Knex } from 'knex';
import { erasedAddressSql, normalizeAddress } from './suppressions';
import { ERASED_EMAIL_STATE } from './emailStates';

/**
 * Erasure of one person from a project (docs/privacy.md "Erasure"), in the caller's transaction:
 * every row that names the address or the contact goes, except the emails, which stay as anonymous
 * counters (status and timestamps, nothing that says to whom or what) so campaign and email stats
 * stay right, and the suppression entry, which stays in its hashed form.
 *
 * What names a person, table by table (the erasure test in test/integration/erasure.test.ts reads
 * every text, json and bytea column of the database for the address, so a new column that can hold
 * it fails that test until it is handled here):
 * - contacts (address, data) and, by ON DELETE CASCADE, contact_topics, consent_records,
 *   contact_confirmations, events, workflow_executions and their steps (context, outputs, errors),
 *   workflow_entries, segment_members, segment_membership_changes, marketing_sends, inbound_messages of the contact;
 * - emails: to_email, to_name, variables, headers, subject/body/text (a /v1/send may inline anything),
 *   rendered_*, links (a link may carry the address), error (providers quote it); attachments;
 * - inbound_messages not linked to the contact: its replies and reports by sender, by the email they
 *   answer, or by the raw message naming the address;
 * - webhook_deliveries whose body names the contact or the address (its events' bodies do);
 * - idempotency_keys whose key or path names them; job_rows (imports, exports), job errors and
 *   export lines (contact_export_lines) naming the address;
 * - suppressions: the entry is replaced by its hashed form (db/suppressions erasedAddressSql).
 * Contact ids left in campaign_recipients, campaign_capped and campaign_deferrals are random ids
 * that nothing maps back to a person once the contact row is gone; they keep campaign counts right.
 */

export interface ErasureTarget {
  projectId: string;
  /** The address as given; compared lowercase. */
  email: string;
  /** The contact holding the address in this project, if any. */
  contactId: string | null;
}

export interface ErasureCounts {
  emails: number;
  inbound: number;
  webhookDeliveries: number;
  /** Executions still running or waiting when the contact was erased: their workflows are to be cancelled. */
  executions: string[];
}

/** What an erasure removes or rewrites; the emails' ids and statuses stay. */
const ANONYMOUS_EMAIL = `
  to_email = '', to_name = NULL, subject = '', body = '', text = NULL, variables = '{}', headers = '{}',
  rendered_subject = NULL, rendered_body = NULL, rendered_text = NULL, links = NULL,
  error = CASE WHEN error IS NULL THEN NULL ELSE 'erased' END, contact_id = NULL, updated_at = now(),
  ${ERASED_EMAIL_STATE}`;

/** Case-insensitive "contains", with no LIKE wildcards to escape (`_` is common in addresses). */
const names = (column: string) => `position(:email in lower(${column})) > 0`;

/** The contact holding the address (or the id) in the project, locked against concurrent writers. */
export async function lockContactForErasure(
  trx: Knex,
  projectId: string,
  by: { id: string } | { email: string },
): Promise<{ id: string; email: string } | undefined> {
  const q = trx('contacts').where({ project_id: projectId }).forUpdate().first('id', 'email');
  return 'id' in by ? q.where({ id: by.id }) : q.where({ email: normalizeAddress(by.email) });
}

/** Erases everything the module comment lists for one address (and its contact), in `trx`. */
export async function eraseRows(trx: Knex, target: ErasureTarget): Promise<ErasureCounts> {
  const b = { projectId: target.projectId, email: normalizeAddress(target.email), contactId: target.contactId ?? '' };
  const byContact = target.contactId !== null;

  const executions = byContact
    ? (await trx.raw(`SELECT id FROM workflow_executions WHERE contact_id = :contactId AND status IN ('RUNNING', 'WAITING')`, b)).rows.map(
        (r: { id: string }) => r.id,
      )
    : [];

  // Before the contact (and its events) go: the deliveries are found by their event, as well as by body.
  const deliveries = await trx.raw(
    `DELETE FROM webhook_deliveries d USING webhook_endpoints w
      WHERE d.endpoint_id = w.id AND w.project_id = :projectId
        AND (${names('d.body')} ${byContact ? `OR position(:contactId in d.body) > 0 OR d.event_id IN (SELECT id FROM events WHERE contact_id = :contactId)` : ''})`,
    b,
  );

  const emails = await trx.raw(
    `UPDATE emails SET ${ANONYMOUS_EMAIL}
      WHERE project_id = :projectId AND (lower(to_email) = :email ${byContact ? 'OR contact_id = :contactId' : ''})
      RETURNING id`,
    b,
  );
  const emailIds: string[] = emails.rows.map((r: { id: string }) => r.id);
  await trx('email_attachments').whereIn('email_id', emailIds).del();

  // Replies and reports: by the contact, by sender, by the email they are about, or naming the address
  // anywhere in the message (a forwarded mail, a report quoting the recipient).
  const inbound = await trx.raw(
    `DELETE FROM inbound_messages
      WHERE project_id = :projectId
        AND (${byContact ? 'contact_id = :contactId OR ' : ''} email_id = ANY(:emailIds::uuid[])
             OR lower(mail_from) = :email OR lower(from_address) = :email
             OR ${names("encode(raw, 'escape')")})`,
    { ...b, emailIds },
  );

  await trx.raw(
    `DELETE FROM idempotency_keys
      WHERE project_id = :projectId
        AND (${names('key')} OR ${names('path')} OR position(:encoded in lower(path)) > 0 ${byContact ? 'OR position(:contactId in path) > 0' : ''})`,
    { ...b, encoded: encodeURIComponent(b.email).toLowerCase() },
  );

  await trx.raw(`DELETE FROM job_rows r USING jobs j WHERE r.job_id = j.id AND j.project_id = :projectId AND ${names('r.payload::text')}`, b);
  // An export's file keeps its row count; the person's line goes (db/contactExport).
  await trx.raw(`DELETE FROM contact_export_lines l USING jobs j WHERE l.job_id = j.id AND j.project_id = :projectId AND ${names('l.line')}`, b);
  await trx.raw(
    `UPDATE jobs SET errors = (SELECT coalesce(jsonb_agg(e ORDER BY n), '[]'::jsonb) FROM jsonb_array_elements(errors) WITH ORDINALITY AS x(e, n) WHERE NOT ${names('e::text')})
      WHERE project_id = :projectId AND ${names('errors::text')}`,
    b,
  );

  // Stays suppressed, as a hash: one statement, so a crash never leaves the address unsuppressed.
  await trx.raw(
    `WITH gone AS (DELETE FROM suppressions WHERE project_id = :projectId AND email = :email RETURNING *)
     INSERT INTO suppressions (project_id, email, reason, email_id, created_at, expires_at)
     SELECT project_id, ${erasedAddressSql('project_id', 'email')}, reason, NULL, created_at, expires_at FROM gone
     ON CONFLICT (project_id, email) DO NOTHING`,
    b,
  );

  if (byContact) {
    await trx('contacts').where({ project_id: target.projectId, id: target.contactId }).del();
    await trx.raw(
      `INSERT INTO contact_erasures (project_id, contact_id, executions) VALUES (:projectId, :contactId, :executions::uuid[])
       ON CONFLICT (project_id, contact_id) DO UPDATE SET executions = excluded.executions, erased_at = now(), cancelled_at = NULL`,
      { ...b, executions },
    );
  }
  return { emails: emailIds.length, inbound: inbound.rowCount ?? 0, webhookDeliveries: deliveries.rowCount ?? 0, executions };
}

export interface ContactErasureRow {
  project_id: string;
  contact_id: string;
  executions: string[];
  erased_at: Date;
  cancelled_at: Date | null;
}

/** The ledger row of a contact erased from the project, if it was. */
export async function findContactErasure(db: Knex, projectId: string, contactId: string): Promise<ContactErasureRow | undefined> {
  return db<ContactErasureRow>('contact_erasures').where({ project_id: projectId, contact_id: contactId }).first();
}

/** Erasures whose cancellations were not confirmed `olderThanSeconds` after they committed (a crash in between). */
export async function pendingErasures(db: Knex, olderThanSeconds: number, limit: number): Promise<ContactErasureRow[]> {
  return db<ContactErasureRow>('contact_erasures')
    .whereNull('cancelled_at')
    .where('erased_at', '<', db.raw(`now() - make_interval(secs => ?)`, [olderThanSeconds]))
    .orderBy('erased_at')
    .limit(limit);
}

export async function markErasureCancelled(db: Knex, projectId: string, contactId: string): Promise<void> {
  await db('contact_erasures').where({ project_id: projectId, contact_id: contactId }).update({ cancelled_at: db.fn.now() });
}
