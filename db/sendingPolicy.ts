import type { Knex } from 'knex';
import { CAP_WINDOW_MS, FrequencyCap, SendingPolicy } from '../lib/sendingPolicy';
import { inTransaction } from './transaction';

/** A project's sending policy (lib/sendingPolicy) and the ledger its frequency cap counts. */

interface PolicyColumns {
  timezone: string;
  quiet_hours: SendingPolicy['quietHours'];
  frequency_cap: SendingPolicy['frequencyCap'];
}

const present = (r: PolicyColumns): SendingPolicy => ({ timezone: r.timezone, quietHours: r.quiet_hours ?? null, frequencyCap: r.frequency_cap ?? null });

export async function sendingPolicy(db: Knex, projectId: string): Promise<SendingPolicy | undefined> {
  const row: PolicyColumns | undefined = await db('projects').where({ id: projectId }).first('timezone', 'quiet_hours', 'frequency_cap');
  return row && present(row);
}

/** Changes only the keys present in `patch`. */
export async function updateSendingPolicy(db: Knex, projectId: string, patch: Partial<SendingPolicy>): Promise<SendingPolicy | undefined> {
  const set: Record<string, unknown> = {};
  if (patch.timezone !== undefined) set.timezone = patch.timezone;
  if (patch.quietHours !== undefined) set.quiet_hours = patch.quietHours === null ? null : JSON.stringify(patch.quietHours);
  if (patch.frequencyCap !== undefined) set.frequency_cap = patch.frequencyCap === null ? null : JSON.stringify(patch.frequencyCap);
  if (Object.keys(set).length === 0) return sendingPolicy(db, projectId);
  const [row] = await db('projects')
    .where({ id: projectId })
    .update({ ...set, updated_at: db.fn.now() })
    .returning(['timezone', 'quiet_hours', 'frequency_cap']);
  return row && present(row);
}

/**
 * Claims one MARKETING email for a contact under the cap: true when it may be handed over. Two
 * workers claiming for the same contact take turns on a per-contact transaction lock, so the count
 * each sees includes the other's claim. A claim is keyed by the email id: asking again for an email
 * already claimed answers true, so retried activities neither double-count nor lose their email.
 */
export async function claimMarketingSend(db: Knex, input: { emailId: string; projectId: string; contactId: string; cap: FrequencyCap }): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    await trx.raw(`SELECT pg_advisory_xact_lock(hashtextextended('marketing-send:' || ?, 0))`, [input.contactId]);
    const { rows } = await trx.raw(
      `WITH mine AS (SELECT 1 FROM marketing_sends WHERE email_id = ?),
            recent AS (SELECT count(*)::int AS n FROM marketing_sends WHERE contact_id = ? AND sent_at > now() - (? || ' milliseconds')::interval)
       INSERT INTO marketing_sends (email_id, project_id, contact_id)
       SELECT ?, ?, ? FROM recent WHERE NOT EXISTS (SELECT 1 FROM mine) AND recent.n < ?
       RETURNING email_id`,
      [input.emailId, input.contactId, String(CAP_WINDOW_MS[input.cap.per]), input.emailId, input.projectId, input.contactId, input.cap.max],
    );
    if (rows.length > 0) return true;
    const mine = await trx('marketing_sends').where({ email_id: input.emailId }).first('email_id');
    return Boolean(mine);
  });
}
