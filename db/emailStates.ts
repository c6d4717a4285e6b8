import type { Knex } from 'knex';
import { deterministicUuid } from '../lib/ids';
import { binaryTextArray } from './binaryArrays';
import { SUPPRESSED_REASON, type EmailRow, type EmailStatus } from './emails';
import { suppressedSql } from './suppressions';
import { eventListenedSql, type RoutableEventRow } from './events';

/**
 * The states of an email's hand-over, and the statements that move them (services/handOver.ts is
 * their one caller for deliveries): QUEUED (recorded, never offered) → SENDING (offered, or about to
 * be: the outcome is unknown until the provider answers) → SENT (accepted) or FAILED (refused, or
 * the outcome of an interrupted attempt unknown), or back to QUEUED (nothing left the building).
 * SUPPRESSED rows were never offered. Every statement moves rows only from the state it expects, so
 * a retried attempt or a concurrent cancel never moves a row twice.
 *
 * The set-based statements take a scope: a campaign's rows (`campaignId`, whose counters move with
 * them), or rows of no campaign (`null`: /v1/send batches and single deliveries).
 */

/** Moves an email between states only from the expected one; returns the row when it moved. */
export async function transitionEmail(
  knex: Knex,
  id: string,
  from: EmailStatus[],
  to: EmailStatus,
  extra: Partial<
    Pick<
      EmailRow,
      | 'provider_message_id'
      | 'error'
      | 'transport'
      | 'sent_at'
      | 'rendered_subject'
      | 'rendered_body'
      | 'rendered_text'
      | 'track_opens'
      | 'track_clicks'
      | 'links'
    >
  > = {},
): Promise<EmailRow | undefined> {
  const [row] = await knex<EmailRow>('emails')
    .where({ id })
    .whereIn('status', from)
    .update({ ...extra, status: to, updated_at: knex.fn.now() as any })
    .returning('*');
  return row;
}

/**
 * The hand-over claim of one email, in one statement: QUEUED → SENDING, or → SUPPRESSED when its
 * recipient is on its project's suppression list (checked here, at hand-over, so an address
 * suppressed after the email was queued is still honoured). Undefined when the row was not QUEUED.
 */
export async function claimEmail(knex: Knex, id: string, transport: string): Promise<EmailRow | undefined> {
  const { rows } = await knex.raw(
    `UPDATE emails e
        SET status = CASE WHEN s.suppressed THEN 'SUPPRESSED' ELSE 'SENDING' END,
            transport = CASE WHEN s.suppressed THEN NULL ELSE :transport END,
            error = CASE WHEN s.suppressed THEN :reason ELSE e.error END,
            updated_at = now()
       FROM (SELECT ${suppressedSql('x.project_id', 'x.to_email')} AS suppressed FROM emails x WHERE x.id = :id) s
      WHERE e.id = :id AND e.status = 'QUEUED'
      RETURNING e.*`,
    { id, transport, reason: SUPPRESSED_REASON },
  );
  return rows[0];
}

/** The id of an email's `email.sent` event: the one deliverEmail's recordEmailEvent derives, so both paths agree. */
export const emailSentEventId = (emailId: string) => deterministicUuid(emailId, 'email.sent');

export interface HandedOver {
  /** Rows that moved SENDING → SENT (sentCount moved by as many). */
  moved: number;
  /** The `email.sent` events written for them that something may listen to: to hand to event routing. */
  events: RoutableEventRow[];
  /** Ids of the `email.sent` events written already routed (nothing listened when they were written). */
  settled: string[];
}

/**
 * SENDING → SENT for what the provider accepted, in one statement: sentCount moves by exactly the
 * rows that moved, and each of them gets its `email.sent` event (like a transactional
 * send), so the activity feed lists campaign mail and workflows can trigger on it. One multi-row
 * insert per group; a contact deleted meanwhile gets no event.
 *
 * An event nothing can act on (no workflow it triggers, no webhook endpoint for it, no execution of
 * its contact waiting for it) is written already routed: a campaign to a project that does not use
 * `email.sent` pays no routing pass for it (docs/architecture.md, "email.sent nobody listens to").
 * A wait that committed while this statement ran is caught by reopenForWaits (db/events.ts) after it.
 *
 * `campaignId` null: transactional emails (a /v1/send batch), the same way without a campaign's counts.
 */
export async function markHandedOver(knex: Knex, campaignId: string | null, accepted: Array<{ emailId: string; messageId: string }>): Promise<HandedOver> {
  const emailIds = accepted.map((a) => a.emailId);
  const { rows } = await knex.raw(
    `WITH moved AS (
       UPDATE emails e SET status = 'SENT', provider_message_id = a.message_id, sent_at = now(), updated_at = now()
         FROM unnest(:ids::uuid[], :messageIds::text[]) AS a(id, message_id)
        WHERE e.id = a.id AND ${campaignId ? 'e.campaign_id = :campaignId' : 'e.campaign_id IS NULL'} AND e.status = 'SENDING'
       RETURNING e.id, e.project_id, e.contact_id),
     n AS (SELECT count(*)::int AS n FROM moved),
     bump AS (
       UPDATE campaigns SET sent_count = sent_count + n.n, updated_at = now() FROM n
        WHERE campaigns.id = :campaignId AND n.n > 0),
     sent AS (
       INSERT INTO events (id, project_id, contact_id, name, data, routed_at)
       SELECT u.event_id, m.project_id, m.contact_id, 'email.sent', jsonb_build_object('emailId', m.id),
              CASE WHEN ${eventListenedSql('m.project_id', 'm.contact_id', "'email.sent'")} THEN NULL ELSE now() END
         FROM moved m
         JOIN unnest(:ids::uuid[], :eventIds::uuid[]) AS u(email_id, event_id) ON u.email_id = m.id
         JOIN contacts ct ON ct.id = m.contact_id
       ON CONFLICT (id) DO NOTHING
       RETURNING id, project_id, contact_id, name, routed_at IS NOT NULL AS settled)
     SELECT (SELECT n FROM n) AS n,
            (SELECT coalesce(json_agg(json_build_object('id', id, 'project_id', project_id, 'contact_id', contact_id, 'name', name)), '[]') FROM sent WHERE NOT settled) AS events,
            (SELECT coalesce(array_agg(id), '{}') FROM sent WHERE settled) AS settled`,
    { messageIds: binaryTextArray(accepted.map((a) => a.messageId)), ids: emailIds, eventIds: emailIds.map(emailSentEventId), campaignId },
  );
  return { moved: rows[0].n, events: rows[0].events, settled: rows[0].settled };
}

/**
 * SENDING → FAILED (the provider refused, or an interrupted attempt left the outcome unknown). `error`
 * is one message for all, or each email id's own (SMTP refuses recipients one by one). Returns the ids that moved.
 */
export async function markFailed(
  knex: Knex,
  campaignId: string | null,
  where: { emailIds: string[] } | { contactIds: string[] },
  error: string | Record<string, string>,
): Promise<string[]> {
  return knex.transaction(async (trx) => {
    const q = trx('emails').where({ campaign_id: campaignId, status: 'SENDING' });
    if ('emailIds' in where) q.whereIn('id', where.emailIds);
    else q.whereIn('contact_id', where.contactIds);
    const message = typeof error === 'string' ? error : trx.raw('(?::jsonb) ->> id::text', [JSON.stringify(error)]);
    const moved: Array<{ id: string }> = await q.update({ status: 'FAILED', error: message, updated_at: trx.fn.now() }).returning('id');
    if (campaignId && moved.length) await trx('campaigns').where({ id: campaignId }).increment('failed_count', moved.length);
    return moved.map((r) => r.id);
  });
}

/** SENDING → QUEUED: nothing left the building (a retryable refusal, or never offered), so a retry may offer them again. */
export async function releaseClaim(knex: Knex, campaignId: string | null, where: { emailIds: string[] } | { contactIds: string[] }): Promise<void> {
  const q = knex('emails').where({ campaign_id: campaignId, status: 'SENDING' });
  if ('emailIds' in where) q.whereIn('id', where.emailIds);
  else q.whereIn('contact_id', where.contactIds);
  await q.update({ status: 'QUEUED', updated_at: knex.fn.now() });
}
