import type { Knex } from 'knex';
import { deterministicUuid } from '../lib/ids';
import { binaryTextArray } from './binaryArrays';
import { SUPPRESSED_REASON, type EmailRow, type EmailStatus } from './emails';
import { suppressedEventBindings, suppressedEventsCtes, suppressedSql, type SuppressedEvent } from './suppressions';
import { eventListenedSql, type RoutableEventRow } from './events';
import { claimEventKeysSql } from './eventKeys';
import { type EngagementHit, type EngagementRules, LINKS_OF, type RecordedEngagements } from './tracking';
import { campaignEmailId, type RecipientEmail } from './campaignEmails';
import type { CampaignRow } from './campaigns';
import { inTransaction } from './transaction';

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

/**
 * The state an erased email takes (an assignment for db/erasure's UPDATE of the row): one not
 * handed over yet never will be (the delivery claims QUEUED rows only), so it is FAILED.
 */
export const ERASED_EMAIL_STATE = `status = CASE WHEN status IN ('QUEUED', 'SCHEDULED') THEN 'FAILED' ELSE status END`;

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
 * The columns a hand-over claim sets on a QUEUED row, written once for every claim (one email, a
 * /v1/send batch, a campaign page's fresh and re-queued rows): SENDING with `:transport`; SUPPRESSED
 * with `:suppressedReason` when `suppressed` (an SQL boolean, the recipient is on its project's
 * suppression list); FAILED with its render error when `renderError` (an SQL text, null when the
 * row rendered) is set. `keptError`: the error a claimed row keeps (a stored row's own; NULL for a
 * fresh render). The suppression list is read here, at hand-over, so an address suppressed after
 * the email was queued is still honoured.
 */
export function claimColumns(o: { suppressed: string; renderError?: string; keptError?: string }): { status: string; transport: string; error: string } {
  const failed = o.renderError ? `WHEN ${o.renderError} IS NOT NULL THEN 'FAILED' ` : '';
  const failedError = o.renderError ? `WHEN ${o.renderError} IS NOT NULL THEN ${o.renderError} ` : '';
  return {
    status: `CASE ${failed}WHEN ${o.suppressed} THEN 'SUPPRESSED' ELSE 'SENDING' END`,
    transport: `CASE ${failed.replace("'FAILED'", 'NULL')}WHEN ${o.suppressed} THEN NULL ELSE :transport END`,
    error: `CASE ${failedError}WHEN ${o.suppressed} THEN :suppressedReason ELSE ${o.keptError ?? 'NULL'} END`,
  };
}

/**
 * The hand-over claim of one email, in one statement: QUEUED → SENDING, or → SUPPRESSED when its
 * recipient is on its project's suppression list (claimColumns). Undefined when the row was not QUEUED.
 */
export async function claimEmail(knex: Knex, id: string, transport: string): Promise<EmailRow | undefined> {
  const set = claimColumns({ suppressed: 's.suppressed', keptError: 'e.error' });
  const { rows } = await knex.raw(
    `UPDATE emails e
        SET status = ${set.status},
            transport = ${set.transport},
            error = ${set.error},
            updated_at = now()
       FROM (SELECT ${suppressedSql('x.project_id', 'x.to_email')} AS suppressed FROM emails x WHERE x.id = :id) s
      WHERE e.id = :id AND e.status = 'QUEUED'
      RETURNING e.*`,
    { id, transport, suppressedReason: SUPPRESSED_REASON },
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
     sent_keys AS (${claimEventKeysSql(`SELECT u.event_id, m.project_id FROM moved m
         JOIN unnest(:ids::uuid[], :eventIds::uuid[]) AS u(email_id, event_id) ON u.email_id = m.id
         JOIN contacts ct ON ct.id = m.contact_id`)}),
     sent AS (
       INSERT INTO events (id, project_id, contact_id, name, data, routed_at)
       SELECT u.event_id, m.project_id, m.contact_id, 'email.sent', jsonb_build_object('emailId', m.id),
              CASE WHEN ${eventListenedSql('m.project_id', 'm.contact_id', "'email.sent'")} THEN NULL ELSE now() END
         FROM moved m
         JOIN unnest(:ids::uuid[], :eventIds::uuid[]) AS u(email_id, event_id) ON u.email_id = m.id
         JOIN contacts ct ON ct.id = m.contact_id
         JOIN sent_keys k ON k.id = u.event_id
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
  return knex.transaction((trx) => failSending(trx, campaignId, where, error));
}

/** markFailed's statement in `trx`; `'all'`: every SENDING row of the scope (a cancelled campaign's). */
async function failSending(
  trx: Knex,
  campaignId: string | null,
  where: { emailIds: string[] } | { contactIds: string[] } | 'all',
  error: string | Record<string, string>,
): Promise<string[]> {
  const q = trx('emails').where({ campaign_id: campaignId, status: 'SENDING' });
  if (where !== 'all') {
    if ('emailIds' in where) q.whereIn('id', where.emailIds);
    else q.whereIn('contact_id', where.contactIds);
  }
  const message = typeof error === 'string' ? error : trx.raw('(?::jsonb) ->> id::text', [JSON.stringify(error)]);
  const moved: Array<{ id: string }> = await q.update({ status: 'FAILED', error: message, updated_at: trx.fn.now() }).returning('id');
  if (campaignId && moved.length) await trx('campaigns').where({ id: campaignId }).increment('failed_count', moved.length);
  return moved.map((r) => r.id);
}

/** SENDING → QUEUED: nothing left the building (a retryable refusal, or never offered), so a retry may offer them again. */
export async function releaseClaim(knex: Knex, campaignId: string | null, where: { emailIds: string[] } | { contactIds: string[] }): Promise<void> {
  const q = knex('emails').where({ campaign_id: campaignId, status: 'SENDING' });
  if ('emailIds' in where) q.whereIn('id', where.emailIds);
  else q.whereIn('contact_id', where.contactIds);
  await q.update({ status: 'QUEUED', updated_at: knex.fn.now() });
}

// ───────────────────────────── scheduled sends ─────────────────────────────
//
// A scheduled email is SCHEDULED until its hand-over moves it to QUEUED under a /v1/send batch
// workflow (releaseDueScheduled), or a cancel moves it to CANCELLED. Each move is one conditional
// UPDATE from SCHEDULED, so of a cancel and a hand-over racing for one row exactly one wins.

/** Why a cancel or reschedule could not move the email: none in this project, or it left SCHEDULED. */
export type ScheduledMove = { moved: EmailRow } | { missing: true } | { status: EmailStatus };

async function scheduledOutcome(knex: Knex, projectId: string, id: string, row: EmailRow | undefined): Promise<ScheduledMove> {
  if (row) return { moved: row };
  const found = await knex<EmailRow>('emails').where({ project_id: projectId, id }).first('status');
  return found ? { status: found.status } : { missing: true };
}

/** SCHEDULED → CANCELLED: never handed over. */
export async function cancelScheduled(knex: Knex, projectId: string, id: string): Promise<ScheduledMove> {
  const [row] = await knex<EmailRow>('emails')
    .where({ project_id: projectId, id, status: 'SCHEDULED' })
    .update({ status: 'CANCELLED', updated_at: knex.fn.now() as any })
    .returning('*');
  return scheduledOutcome(knex, projectId, id, row);
}

/** A SCHEDULED email's new due time (it stays SCHEDULED). */
export async function rescheduleEmail(knex: Knex, projectId: string, id: string, sendAt: Date): Promise<ScheduledMove> {
  const [row] = await knex<EmailRow>('emails')
    .where({ project_id: projectId, id, status: 'SCHEDULED' })
    .update({ send_at: sendAt, updated_at: knex.fn.now() as any })
    .returning('*');
  return scheduledOutcome(knex, projectId, id, row);
}

/**
 * The hand-over of up to `limit` due SCHEDULED emails of a project (`send_at` ≤ `until`), in one
 * statement: SCHEDULED → QUEUED naming the /v1/send batch workflow `workflowId` that delivers them
 * (db/deliveryBatches). Rows another hand-over or a cancel holds are skipped, not waited for.
 */
export async function releaseDueScheduled(knex: Knex, projectId: string, until: Date, workflowId: string, limit: number): Promise<string[]> {
  const { rows } = await knex.raw(
    `UPDATE emails e SET status = 'QUEUED', delivery_workflow = :workflowId, updated_at = now()
      WHERE e.id IN (SELECT id FROM emails
                      WHERE project_id = :projectId AND status = 'SCHEDULED' AND send_at <= :until
                      ORDER BY send_at, id LIMIT :limit FOR UPDATE SKIP LOCKED)
        AND e.status = 'SCHEDULED'
      RETURNING e.id`,
    { workflowId, projectId, until, limit },
  );
  return rows.map((r: { id: string }) => r.id);
}

// ───────────────────────────── /v1/send batches ─────────────────────────────

/** One QUEUED row rendered for hand-over, or the reason it could not be. */
export type RenderedEmail =
  | { id: string; subject: string; body: string; text: string; trackOpens: boolean; trackClicks: boolean; links: string[] | null }
  | { id: string; error: string };

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
  const set = claimColumns({ suppressed: suppressedSql('e.project_id', 'e.to_email'), renderError: 'u.error' });
  const { rows } = await knex.raw(
    `WITH claimed AS (
       UPDATE emails e
          SET status = ${set.status},
              transport = ${set.transport},
              rendered_subject = u.subject, rendered_body = u.body, rendered_text = u.text,
              track_opens = u.track_opens::boolean, track_clicks = u.track_clicks::boolean, links = ${LINKS_OF('u.links')},
              error = ${set.error},
              updated_at = now()
         FROM unnest(:ids::text[], :subjects::text[], :bodies::text[], :texts::text[], :errors::text[], :trackOpens::text[], :trackClicks::text[], :links::text[])
              AS u(id, subject, body, text, error, track_opens, track_clicks, links)
        WHERE e.id = u.id::uuid AND e.delivery_workflow = :workflowId AND e.status = 'QUEUED'
        RETURNING e.*),
     ${suppressedEventsCtes('claimed')}
     SELECT claimed.*, (SELECT coalesce(json_agg(suppressed_events), '[]') FROM suppressed_events) AS suppressed_events FROM claimed`,
    {
      transport,
      workflowId,
      suppressedReason: SUPPRESSED_REASON,
      ids: binaryTextArray(rendered.map((r) => r.id)),
      subjects: binaryTextArray(rendered.map((r) => ('error' in r ? null : r.subject))),
      bodies: binaryTextArray(rendered.map((r) => ('error' in r ? null : r.body))),
      texts: binaryTextArray(rendered.map((r) => ('error' in r ? null : r.text))),
      errors: binaryTextArray(rendered.map((r) => ('error' in r ? `render failed: ${r.error}` : null))),
      trackOpens: binaryTextArray(rendered.map((r) => ('error' in r ? null : String(r.trackOpens)))),
      trackClicks: binaryTextArray(rendered.map((r) => ('error' in r ? null : String(r.trackClicks)))),
      links: binaryTextArray(rendered.map((r) => ('error' in r || r.links === null ? null : JSON.stringify(r.links)))),
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

// ───────────────────────────── campaign pages ─────────────────────────────

export interface ClaimedEmail {
  id: string;
  contact_id: string;
  to_email: string;
  rendered_subject: string;
  rendered_body: string;
  /** Null for a row rendered before the text part was stored (migration 029): generated when handed over. */
  rendered_text: string | null;
  headers: Record<string, string>;
}

export interface PageClaim {
  /** The campaign was still SENDING: when false nothing was written or claimed. */
  live: boolean;
  /** Ids of `fresh` rows written SENDING by this call (not those another attempt had written). */
  written: Set<string>;
  /** The page's QUEUED rows this call moved to SENDING, with what they hold. */
  requeued: ClaimedEmail[];
  /** `fresh` rows written FAILED (their render error). */
  unrenderable: number;
  /** Rows written or moved SUPPRESSED (the recipient is on the project's suppression list): never offered. */
  suppressed: number;
  /** Their `email.suppressed` events, committed with the claim, for routing. */
  events: SuppressedEvent[];
}

/**
 * The hand-over claim of a page, in one statement that also checks the campaign is still SENDING
 * (a cancel that commits first leaves the whole page unwritten and unclaimed):
 *   - `fresh` recipients' rows are written SENDING (or FAILED with their render error; failedCount
 *     moves by those). Rows that exist already stay as they are and are not in `written`;
 *   - rows of `queuedContactIds` still QUEUED move to SENDING;
 *   - either kind whose address is on the project's suppression list is SUPPRESSED instead (set-based:
 *     the list is read by the same statement, never per recipient), with its `email.suppressed` event.
 * The source body is not copied into every row: it is the campaign's (`campaign_id`).
 */
export async function claimPage(knex: Knex, c: CampaignRow, fresh: RecipientEmail[], queuedContactIds: string[], transport: string): Promise<PageClaim> {
  // A fresh row's project is the campaign's; a stored one's is its own.
  const freshClaim = claimColumns({ suppressed: suppressedSql(':projectId::uuid', 'u.to_email'), renderError: 'u.error' });
  const requeuedClaim = claimColumns({ suppressed: suppressedSql('emails.project_id', 'emails.to_email'), keptError: 'error' });
  const { rows } = await knex.raw(
    `WITH live AS (SELECT EXISTS (SELECT 1 FROM campaigns WHERE id = :id AND status = 'SENDING') AS ok),
     fresh AS (
       INSERT INTO emails (id, project_id, contact_id, campaign_id, type, to_email, from_email, from_name, reply_to,
                           subject, body, headers, rendered_subject, rendered_body, rendered_text, status, transport, error, ab_variant,
                           track_opens, track_clicks, links)
       SELECT u.id::uuid, :projectId, u.contact_id, :id, :type, u.to_email, :from, :fromName, :replyTo,
              :subject, '', u.headers::jsonb, u.subject, u.body, u.text,
              ${freshClaim.status}, ${freshClaim.transport}, ${freshClaim.error}, u.variant::smallint,
              u.track_opens::boolean, u.track_clicks::boolean, ${LINKS_OF('u.links')}
         FROM unnest(:ids::text[], :contactIds::text[], :tos::text[], :headers::text[], :subjects::text[], :bodies::text[], :texts::text[], :errors::text[], :variants::text[],
                     :trackOpens::text[], :trackClicks::text[], :links::text[])
              AS u(id, contact_id, to_email, headers, subject, body, text, error, variant, track_opens, track_clicks, links)
        WHERE (SELECT ok FROM live)
       ON CONFLICT DO NOTHING
       RETURNING id, status, project_id, contact_id, campaign_id),
     requeued AS (
       UPDATE emails SET status = ${requeuedClaim.status}, transport = ${requeuedClaim.transport}, error = ${requeuedClaim.error}, updated_at = now()
        WHERE campaign_id = :id AND contact_id = ANY(:queued::text[]) AND status = 'QUEUED' AND (SELECT ok FROM live)
       RETURNING id, contact_id, to_email, rendered_subject, rendered_body, rendered_text, headers, status, project_id, campaign_id),
     ${suppressedEventsCtes(
       '(SELECT id, project_id, contact_id, campaign_id, status FROM fresh UNION ALL SELECT id, project_id, contact_id, campaign_id, status FROM requeued)',
     )},
     failed AS (
       UPDATE campaigns SET failed_count = failed_count + f.n
         FROM (SELECT count(*)::int AS n FROM fresh WHERE status = 'FAILED') f
        WHERE campaigns.id = :id AND f.n > 0)
     SELECT (SELECT ok FROM live) AS live,
            (SELECT coalesce(array_agg(id::text), '{}') FROM fresh WHERE status = 'SENDING') AS written,
            (SELECT coalesce(json_agg(r), '[]') FROM (SELECT id, contact_id, to_email, rendered_subject, rendered_body, headers FROM requeued WHERE status = 'SENDING') r) AS requeued,
            (SELECT count(*)::int FROM fresh WHERE status = 'FAILED') AS unrenderable,
            (SELECT count(*)::int FROM fresh WHERE status = 'SUPPRESSED') + (SELECT count(*)::int FROM requeued WHERE status = 'SUPPRESSED') AS suppressed,
            (SELECT coalesce(json_agg(suppressed_events), '[]') FROM suppressed_events) AS suppressed_events`,
    {
      id: c.id,
      projectId: c.project_id,
      type: c.type,
      from: c.from,
      fromName: c.from_name,
      replyTo: c.reply_to,
      subject: c.subject,
      transport,
      ids: binaryTextArray(fresh.map((e) => e.id)),
      contactIds: binaryTextArray(fresh.map((e) => e.contactId)),
      tos: binaryTextArray(fresh.map((e) => e.to)),
      headers: binaryTextArray(fresh.map((e) => JSON.stringify(e.headers))),
      subjects: binaryTextArray(fresh.map((e) => (e.error ? null : e.subject))),
      bodies: binaryTextArray(fresh.map((e) => (e.error ? null : e.body))),
      texts: binaryTextArray(fresh.map((e) => (e.error ? null : e.text))),
      errors: binaryTextArray(fresh.map((e) => e.error ?? null)),
      variants: binaryTextArray(fresh.map((e) => (e.variant === null || e.variant === undefined ? null : String(e.variant)))),
      trackOpens: binaryTextArray(fresh.map((e) => (e.error || e.trackOpens === undefined ? null : String(e.trackOpens)))),
      trackClicks: binaryTextArray(fresh.map((e) => (e.error || e.trackClicks === undefined ? null : String(e.trackClicks)))),
      links: binaryTextArray(fresh.map((e) => (e.error || !e.links ? null : JSON.stringify(e.links)))),
      queued: queuedContactIds,
      suppressedReason: SUPPRESSED_REASON,
      ...suppressedEventBindings([...fresh.map((e) => e.id), ...queuedContactIds.map((contactId) => campaignEmailId(c.id, contactId))]),
    },
  );
  const [row] = rows;
  return {
    live: row.live,
    written: new Set<string>(row.written),
    requeued: row.requeued,
    unrenderable: row.unrenderable,
    suppressed: row.suppressed,
    events: row.suppressed_events,
  };
}

/** Rows recorded for a page that a cancel stopped before hand-over: they never went out, so they go. */
export async function dropUnsent(knex: Knex, campaignId: string, contactIds: string[]): Promise<void> {
  if (contactIds.length) await knex('emails').where({ campaign_id: campaignId, status: 'QUEUED' }).whereIn('contact_id', contactIds).del();
}

/**
 * A cancelled campaign's rows no batch comes back for: an attempt cancelled in its retry wait, or
 * one that died, leaves them QUEUED (never offered) or SENDING (outcome unknown). QUEUED rows
 * never went out, so they go; SENDING rows are failed with `unknownOutcome`, unless the transport's
 * hand-over is the row itself (`sendingUnsent`: nothing left), when they go too. Runs once the
 * workflow's batches have settled (it cancels them with WAIT_CANCELLATION_COMPLETED).
 */
export async function settleCancelled(
  knex: Knex,
  campaignId: string,
  unknownOutcome: string,
  sendingUnsent: boolean,
): Promise<{ dropped: number; failed: number }> {
  return knex.transaction(async (trx) => {
    const dropped = await trx('emails')
      .where({ campaign_id: campaignId })
      .whereIn('status', sendingUnsent ? ['QUEUED', 'SENDING'] : ['QUEUED'])
      .del();
    const failed = sendingUnsent ? [] : await failSending(trx, campaignId, 'all', unknownOutcome);
    return { dropped, failed: failed.length };
  });
}

// ───────────────────────────── after the hand-over ─────────────────────────────

/**
 * A provider event's move (services/providerEvents): to `to` when the status is one of `from`
 * (statuses only move forward), with the provider's reason when it dropped the email.
 */
export async function advanceEmailStatus(trx: Knex, id: string, to: EmailStatus, from: EmailStatus[], error?: string): Promise<void> {
  await transitionEmail(trx, id, from, to, error ? { error } : {});
}

/**
 * Records a batch of hits, set-based: every hit of a tracked email becomes an engagement row (a
 * machine's too, marked); a human one also an `email.opened`/`email.clicked` event with the link's
 * URL. The first human open and click of an email set its `opened_at`/`clicked_at`, move its status
 * forward, and move its campaign's counters once. Hits of emails not tracked for that kind, or of
 * links the email does not have, are dropped.
 *
 * The email rows are locked first, in id order (as every writer locks them before contacts and
 * campaigns), so the statement that follows reads which milestones are still unset knowing no
 * concurrent batch can set them in between.
 */
export async function recordEngagements(db: Knex, hits: EngagementHit[], rules: EngagementRules): Promise<RecordedEngagements> {
  if (!hits.length) return { recorded: 0, events: [] };
  return inTransaction(db, async (trx) => {
    await trx.raw('SELECT 1 FROM emails WHERE id = ANY(?::uuid[]) ORDER BY id FOR UPDATE', [[...new Set(hits.map((h) => h.emailId))]]);
    const { rows } = await trx.raw(
      `WITH hits AS (
         SELECT * FROM unnest(:ids::uuid[], :emailIds::uuid[], :kinds::text[], :links::int[], :ats::timestamptz[], :heads::boolean[], :scanners::boolean[])
                AS h(id, email_id, kind, link_index, at, head, scanner)),
       judged AS (
         SELECT h.id, h.email_id, h.kind, h.link_index, h.at, e.project_id, e.contact_id, e.campaign_id,
                CASE WHEN h.kind = 'click' THEN e.links[h.link_index + 1] END AS url,
                (h.head OR (h.scanner AND (e.sent_at IS NULL OR h.at <= e.sent_at + make_interval(secs => :window)))) AS machine
           FROM hits h JOIN emails e ON e.id = h.email_id
          WHERE (h.kind = 'open' AND e.track_opens) OR (h.kind = 'click' AND e.links[h.link_index + 1] IS NOT NULL)),
       recorded AS (
         INSERT INTO email_engagements (id, email_id, project_id, campaign_id, kind, link_index, machine, at)
         SELECT id, email_id, project_id, campaign_id, kind, link_index, machine, at FROM judged
         ON CONFLICT (id) DO NOTHING
         RETURNING id),
       firsts AS (
         SELECT email_id, min(at) FILTER (WHERE kind = 'open' AND NOT machine) AS first_open, min(at) FILTER (WHERE kind = 'click' AND NOT machine) AS first_click
           FROM judged GROUP BY email_id),
       fresh AS (
         SELECT e.id, e.campaign_id, (e.opened_at IS NULL AND f.first_open IS NOT NULL) AS opens, (e.clicked_at IS NULL AND f.first_click IS NOT NULL) AS clicks
           FROM emails e JOIN firsts f ON f.email_id = e.id),
       moved AS (
         UPDATE emails e
            SET opened_at = coalesce(e.opened_at, f.first_open),
                clicked_at = coalesce(e.clicked_at, f.first_click),
                status = CASE WHEN f.first_click IS NOT NULL AND e.status = ANY(:toClicked::text[]) THEN 'CLICKED'
                              WHEN f.first_open IS NOT NULL AND e.status = ANY(:toOpened::text[]) THEN 'OPENED'
                              ELSE e.status END,
                updated_at = now()
           FROM firsts f
          WHERE e.id = f.email_id AND (f.first_open IS NOT NULL OR f.first_click IS NOT NULL)
          RETURNING e.id),
       counted AS (
         UPDATE campaigns c SET opened_count = c.opened_count + n.opens, clicked_count = c.clicked_count + n.clicks
           FROM (SELECT campaign_id, count(*) FILTER (WHERE opens)::int AS opens, count(*) FILTER (WHERE clicks)::int AS clicks
                   FROM fresh WHERE campaign_id IS NOT NULL GROUP BY campaign_id) n
          WHERE c.id = n.campaign_id AND (n.opens > 0 OR n.clicks > 0)),
       events AS (
         INSERT INTO events (id, project_id, contact_id, name, data)
         SELECT j.id, j.project_id, j.contact_id, CASE j.kind WHEN 'open' THEN 'email.opened' ELSE 'email.clicked' END,
                jsonb_strip_nulls(jsonb_build_object('emailId', j.email_id, 'campaignId', j.campaign_id, 'url', j.url, 'provider', 'first-party'))
           FROM judged j JOIN contacts ct ON ct.id = j.contact_id
          -- The engagement row is the claim: a hit recorded before (a retried batch) writes no second event.
          WHERE NOT j.machine AND j.id IN (SELECT id FROM recorded)
         RETURNING id, project_id, contact_id, name)
       SELECT (SELECT count(*)::int FROM recorded) AS recorded, (SELECT count(*) FROM moved) AS moved,
              (SELECT coalesce(json_agg(events), '[]') FROM events) AS events`,
      {
        ids: hits.map((h) => h.id),
        emailIds: hits.map((h) => h.emailId),
        kinds: hits.map((h) => h.kind),
        links: hits.map((h) => (h.kind === 'click' ? (h.link ?? null) : null)),
        ats: hits.map((h) => h.at.toISOString()),
        heads: hits.map((h) => h.head),
        scanners: hits.map((h) => h.scanner),
        window: rules.machineWindowSeconds,
        toOpened: rules.toOpened,
        toClicked: rules.toClicked,
      },
    );
    return { recorded: rows[0].recorded, events: rows[0].events };
  });
}
