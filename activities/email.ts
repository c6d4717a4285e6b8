import type { ActivityDeps } from './deps';
import { getEmail, emailAttachments } from '../db/emails';
import { claimEmail, transitionEmail } from '../db/emailStates';
import { recordEvent } from '../db/events';
import { offerEach, UNKNOWN_OUTCOME } from '../services/handOver';
import { RenderError } from '../services/render';
import { handOverActivity } from './handOver';
import { outgoingMessage, renderRow } from './outgoing';
import { projectTracking } from '../services/emailTracking';
import { deterministicUuid } from '../lib/ids';
import { redactAddresses } from '../lib/redact';

/** SUPPRESSED: the recipient is on the project's suppression list; nothing was offered to the provider. */
export type DeliveryResult = { status: 'SENT' | 'FAILED' | 'SKIPPED' | 'SUPPRESSED'; messageId?: string | null; error?: string | null };

export function emailActivities(deps: ActivityDeps) {
  const { knex, config } = deps;
  const { handOver, settleInterrupted, transport } = deps.runtime.handOver;

  /**
   * Hands the rendered email to the transport at most once, as a group of one (services/handOver.ts):
   * its project's throttle slot first (held for the email across retries, so a worker lost while
   * waiting leaves the row QUEUED), then the claim QUEUED → SENDING (or SUPPRESSED, never offered,
   * when its recipient is on the project's suppression list). A retry that finds SENDING knows an
   * earlier attempt died without knowing whether the provider took the message, and fails it
   * rather than risk a second copy. System mail has no project and is not throttled.
   */
  async function sendEmail(emailId: string): Promise<DeliveryResult> {
    const email = await getEmail(knex, emailId);
    if (!email) return { status: 'FAILED', error: 'email not found' };
    // An earlier attempt died mid-hand-over: failed as outcome unknown, or (log transport) back to QUEUED.
    if (email.status === 'SENDING' && (await settleInterrupted(null, [{ emailId, type: email.type }]))) return { status: 'FAILED', error: UNKNOWN_OUTCOME };
    const fresh = email.status === 'QUEUED' || (email.status === 'SENDING' && transport.reofferInterrupted);
    let outcome: DeliveryResult | null = null;
    const handed = await handOver(
      {
        projectId: email.project_id,
        campaignId: null,
        typeOf: () => email.type,
        // A row past QUEUED (a retry after the hand-over was recorded) is not offered, nor paced, again.
        groups: fresh ? [[{ emailId }]] : [],
        oneEmail: true,
        claim: async () => {
          const claimed = await claimEmail(knex, emailId, transport.name);
          if (claimed?.status === 'SUPPRESSED') outcome = { status: 'SUPPRESSED' };
          return claimed?.status === 'SENDING' ? [{ ...claimed, emailId }] : [];
        },
        offer: async ([row]) => offerEach(transport, [outgoingMessage(config, row, await emailAttachments(knex, emailId))]),
        // The deliverEmail workflow records and routes its email.sent itself (recordEmailEvent finds this row's event).
        routeSent: async () => {},
      },
      handOverActivity({ stage: 'hand-over' }),
    );
    if (outcome) return outcome;
    const [accepted] = handed.accepted;
    if (accepted) return { status: 'SENT', messageId: accepted.messageId };
    const [refused] = handed.refused;
    if (refused) return { status: 'FAILED', error: redactAddresses(refused.error.message) };
    // Not claimed by this attempt: the row says how it went.
    const current = await getEmail(knex, emailId);
    if (current?.status === 'FAILED') return { status: 'FAILED', error: redactAddresses(current.error) };
    if (current?.status === 'SUPPRESSED') return { status: 'SUPPRESSED' };
    return { status: 'SENT', messageId: current?.provider_message_id ?? null };
  }

  return {
    sendEmail,

    /** Renders subject and body into the row; idempotent (a rendered email is left alone). */
    async renderEmail(emailId: string): Promise<{ ok: boolean; error?: string }> {
      const email = await getEmail(knex, emailId);
      if (!email) return { ok: false, error: 'email not found' };
      if (email.rendered_body !== null || email.status !== 'QUEUED') return { ok: email.status !== 'FAILED' };
      try {
        const tracking = email.project_id ? ((await projectTracking(knex, config, email.project_id)) ?? null) : null;
        const rendered = await renderRow(config, email, tracking);
        // Written only while still QUEUED: a row a concurrent cancel or failure moved is left alone.
        await transitionEmail(knex, emailId, ['QUEUED'], 'QUEUED', {
          rendered_subject: rendered.subject,
          rendered_body: rendered.body,
          rendered_text: rendered.text,
          track_opens: rendered.trackOpens,
          track_clicks: rendered.trackClicks,
          links: rendered.links,
        });
        return { ok: true };
      } catch (err) {
        if (!(err instanceof RenderError)) throw err;
        await transitionEmail(knex, emailId, ['QUEUED'], 'FAILED', { error: `render failed: ${err.message}` });
        return { ok: false, error: err.message };
      }
    },

    /** Records an `email.*` event on the contact; the id is derived so a retry inserts nothing new. */
    async recordEmailEvent(emailId: string, name: string): Promise<string | null> {
      const email = await getEmail(knex, emailId);
      if (!email?.contact_id) return null;
      const id = deterministicUuid(emailId, name);
      await recordEvent(knex, { id, projectId: email.project_id, contactId: email.contact_id, name, data: { emailId } });
      return id;
    },
  };
}
