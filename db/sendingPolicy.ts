import type { Knex } from 'knex';
import { CAP_WINDOW_MS, FrequencyCap, SendingPolicy } from '../lib/sendingPolicy';
import { inTransaction } from './transaction';

/** A project's sending policy (lib/sendingPolicy) and the ledger its frequency cap counts. */

interface PolicyColumns {
  timezone: string;
  quiet_hours: SendingPolicy['quietHours'];
  frequency_cap: SendingPolicy['frequencyCap'];
  send_rate_per_second: number | null;
}

const COLUMNS = ['timezone', 'quiet_hours', 'frequency_cap', 'send_rate_per_second'];

const present = (r: PolicyColumns): SendingPolicy => ({
  timezone: r.timezone,
  quietHours: r.quiet_hours ?? null,
  frequencyCap: r.frequency_cap ?? null,
  sendRatePerSecond: r.send_rate_per_second === null || r.send_rate_per_second === undefined ? null : Number(r.send_rate_per_second),
});

export async function sendingPolicy(db: Knex, projectId: string): Promise<SendingPolicy | undefined> {
  const row: PolicyColumns | undefined = await db('projects').where({ id: projectId }).first(COLUMNS);
  return row && present(row);
}

/** Changes only the keys present in `patch`. */
export async function updateSendingPolicy(db: Knex, projectId: string, patch: Partial<SendingPolicy>): Promise<SendingPolicy | undefined> {
  const set: Record<string, unknown> = {};
  if (patch.timezone !== undefined) set.timezone = patch.timezone;
  if (patch.quietHours !== undefined) set.quiet_hours = patch.quietHours === null ? null : JSON.stringify(patch.quietHours);
  if (patch.frequencyCap !== undefined) set.frequency_cap = patch.frequencyCap === null ? null : JSON.stringify(patch.frequencyCap);
  if (patch.sendRatePerSecond !== undefined) set.send_rate_per_second = patch.sendRatePerSecond;
  if (Object.keys(set).length === 0) return sendingPolicy(db, projectId);
  const [row] = await db('projects')
    .where({ id: projectId })
    .update({ ...set, updated_at: db.fn.now() })
    .returning(COLUMNS);
  return row && present(row);
}

/**
 * Claims MARKETING emails for contacts under the cap: the ids of those that may be handed over. Two
 * workers claiming for the same contact take turns on per-contact transaction locks (taken in
 * contact order, so overlapping batches cannot deadlock), so the count each sees includes the
 * other's claims. A claim is keyed by the email id: asking again for an email already claimed
 * answers yes, so retried activities neither double-count nor lose their email. One email per
 * contact per call.
 */
export async function claimMarketingSends(
  db: Knex,
  input: { projectId: string; cap: FrequencyCap; sends: { emailId: string; contactId: string }[] },
): Promise<Set<string>> {
  if (input.sends.length === 0) return new Set();
  const emailIds = input.sends.map((s) => s.emailId);
  const contactIds = input.sends.map((s) => s.contactId);
  return inTransaction(db, async (trx) => {
    await trx.raw(`SELECT pg_advisory_xact_lock(hashtextextended('marketing-send:' || c, 0)) FROM (SELECT DISTINCT c FROM unnest(?::text[]) c ORDER BY c) s`, [
      contactIds,
    ]);
    // A new statement: its snapshot sees every claim committed by whoever held a lock before us.
    const { rows } = await trx.raw(
      `WITH req AS (SELECT * FROM unnest(?::uuid[], ?::text[]) AS r(email_id, contact_id)),
            mine AS (SELECT email_id FROM marketing_sends WHERE email_id = ANY(?::uuid[])),
            recent AS (SELECT contact_id, count(*)::int AS n FROM marketing_sends
                        WHERE contact_id = ANY(?::text[]) AND sent_at > now() - (? || ' milliseconds')::interval GROUP BY contact_id),
            ins AS (INSERT INTO marketing_sends (email_id, project_id, contact_id)
                    SELECT r.email_id, ?, r.contact_id FROM req r LEFT JOIN recent USING (contact_id)
                     WHERE r.email_id NOT IN (SELECT email_id FROM mine) AND coalesce(recent.n, 0) < ?
                    RETURNING email_id)
       SELECT email_id::text FROM ins UNION ALL SELECT email_id::text FROM mine`,
      [emailIds, contactIds, emailIds, contactIds, String(CAP_WINDOW_MS[input.cap.per]), input.projectId, input.cap.max],
    );
    return new Set<string>(rows.map((r: { email_id: string }) => r.email_id));
  });
}
