import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityDeps } from '.';
import { claimEmail, getEmail, emailAttachments, transitionEmail } from '../db/emails';
import { recordEvent } from '../db/events';
import { Transport, TransportRejected } from '../services/transport';
import { sendThrottleFor } from '../services/sendThrottle';
import { refusalBounces } from '../services/providerEvents';
import { RenderError } from '../services/render';
import { outgoingMessage, renderRow } from './outgoing';
import { trackingSettings } from '../db/tracking';
import { deterministicUuid } from '../lib/ids';
import { deliveriesFailed, emailsHandedOver } from '../lib/metrics';
import { redactAddresses } from '../lib/redact';

/** SUPPRESSED: the recipient is on the project's suppression list; nothing was offered to the provider. */
export type DeliveryResult = { status: 'SENT' | 'FAILED' | 'SKIPPED' | 'SUPPRESSED'; messageId?: string | null; error?: string | null };

export function emailActivities(deps: ActivityDeps, transport: Transport = deps.runtime.transport) {
  const { knex, config } = deps;
  const bounces = refusalBounces(deps, transport);
  const throttle = sendThrottleFor(knex, config.email, transport);

  /**
   * Waits for the email's slot of its project's send throttle, before the claim so that a worker
   * lost while waiting leaves the row QUEUED. A slot further away than a short wait is held for the
   * email and the attempt fails with that delay: the Temporal retry carries the wait (and uses an
   * attempt), not a worker's activity slot. System mail has no project and is not throttled.
   */
  async function awaitSendSlot(emailId: string): Promise<void> {
    const email = throttle && (await getEmail(knex, emailId));
    if (!throttle || !email?.project_id || email.status !== 'QUEUED') return;
    // The wait in the activity is at most a second (EMAIL_WAIT_MS): a shutting-down worker's grace time covers it.
    const slot = await throttle.email({ emailId, projectId: email.project_id });
    if (!slot.go) {
      throw ApplicationFailure.create({
        type: 'SendThrottled',
        message: `project send rate ${slot.rate}/s: the email's slot begins in ${Math.round(slot.retryInMs)} ms`,
        nextRetryDelay: Math.max(1, Math.round(slot.retryInMs)),
      });
    }
  }

  /**
   * Hands the rendered email to the transport at most once. The row is claimed QUEUED → SENDING
   * first (or SUPPRESSED, never offered, when its recipient is on the project's suppression list); a retry that finds SENDING knows an earlier attempt died without knowing whether the
   * provider took the message, and fails it rather than risk a second copy.
   */
  async function sendEmail(emailId: string): Promise<DeliveryResult> {
    await awaitSendSlot(emailId);
    const claimed = await claimEmail(knex, emailId, transport.name);
    if (claimed?.status === 'SUPPRESSED') return { status: 'SUPPRESSED' };
    if (!claimed) {
      const current = await getEmail(knex, emailId);
      if (!current) return { status: 'FAILED', error: 'email not found' };
      if (current.status === 'SENDING') {
        if (transport.reofferInterrupted) {
          await transitionEmail(knex, emailId, ['SENDING'], 'QUEUED');
          return sendEmail(emailId);
        }
        const error = 'delivery outcome unknown after an interrupted attempt; not retried to avoid a duplicate';
        if (await transitionEmail(knex, emailId, ['SENDING'], 'FAILED', { error }))
          deliveriesFailed.inc({ transport: transport.name, type: current.type, reason: 'interrupted' });
        return { status: 'FAILED', error };
      }
      if (current.status === 'FAILED') return { status: 'FAILED', error: redactAddresses(current.error) };
      if (current.status === 'SUPPRESSED') return { status: 'SUPPRESSED' };
      return { status: 'SENT', messageId: current.provider_message_id };
    }
    try {
      const { messageId } = await transport.send(outgoingMessage(config, claimed, await emailAttachments(knex, emailId)));
      await transitionEmail(knex, emailId, ['SENDING'], 'SENT', { provider_message_id: messageId, sent_at: new Date() });
      emailsHandedOver.inc({ transport: transport.name, type: claimed.type });
      return { status: 'SENT', messageId };
    } catch (err) {
      if (err instanceof TransportRejected) {
        deliveriesFailed.inc({ transport: transport.name, type: claimed.type, reason: err.retryable ? 'unavailable' : 'rejected' });
        if (err.retryable) {
          await transitionEmail(knex, emailId, ['SENDING'], 'QUEUED');
          throw ApplicationFailure.retryable(redactAddresses(err.message), 'TransportUnavailable');
        }
        await transitionEmail(knex, emailId, ['SENDING'], 'FAILED', { error: err.message });
        // A refusal of the recipient (SMTP 5xx) is also a bounce.
        await bounces.record([{ emailId, error: err }]);
        return { status: 'FAILED', error: redactAddresses(err.message) };
      }
      throw err;
    }
  }

  return {
    sendEmail,

    /** Renders subject and body into the row; idempotent (a rendered email is left alone). */
    async renderEmail(emailId: string): Promise<{ ok: boolean; error?: string }> {
      const email = await getEmail(knex, emailId);
      if (!email) return { ok: false, error: 'email not found' };
      if (email.rendered_body !== null || email.status !== 'QUEUED') return { ok: email.status !== 'FAILED' };
      try {
        const tracking = email.project_id ? ((await trackingSettings(knex, email.project_id)) ?? null) : null;
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
