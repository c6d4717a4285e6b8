import type { Config } from '../lib/config';
import type { EmailRow, StoredAttachment } from '../db/emails';
import type { OutgoingMessage } from '../services/transport';
import { renderTemplate, BatchRenderer, Rendered } from '../services/render';
import { htmlToPlainText } from '../services/plainText';
import { linksFor, oneClickHeaders } from '../lib/unsubscribe';
import { viewInBrowserUrl } from '../lib/viewLinks';
import { withoutForbiddenHeaders } from '../lib/mailHeaders';
import { NO_TRACKING, resolveTracking } from '../lib/trackingSettings';
import { ProjectTracking, TrackedBody, trackedBody } from '../services/emailTracking';

/**
 * A stored email as the transport gets it, for the paths that deliver rows one by one (a single
 * delivery and a /v1/send batch); campaign groups build theirs from the campaign.
 */

/**
 * Renders a row's subject, body and text part with its variables and the contact's links (so an
 * `{{unsubscribeUrl}}` is in the text part as in the HTML), then applies first-party tracking to
 * the body: the row's own `track` override, else `tracking` (its project's settings and tracking
 * base; null, for system mail: none). Throws RenderError.
 */
export async function renderRow(config: Config, email: EmailRow, tracking: ProjectTracking | null, renderer?: BatchRenderer): Promise<Rendered & TrackedBody> {
  const links = email.contact_id ? linksFor(config, email.project_id, email.contact_id, email.topic_id) : {};
  const template = { subject: email.subject, body: email.body, text: email.text };
  const variables = { ...email.variables, ...links, viewInBrowserUrl: viewInBrowserUrl(config, email.id) };
  const rendered = await (renderer ? renderer.render(template, variables) : renderTemplate(template, variables));
  const choice = tracking
    ? resolveTracking(tracking.settings, email.type, { opens: email.track_opens ?? undefined, clicks: email.track_clicks ?? undefined })
    : NO_TRACKING;
  return { ...rendered, ...trackedBody(config, email.id, rendered.body, choice, tracking?.base) };
}

/**
 * The message of a claimed (rendered) row; marketing mail and mail sent as a topic carry the
 * one-click unsubscribe pair (of that topic only, for the latter).
 */
export function outgoingMessage(config: Config, row: EmailRow, attachments: StoredAttachment[]): OutgoingMessage {
  const links = row.contact_id ? linksFor(config, row.project_id, row.contact_id, row.topic_id) : null;
  return {
    emailId: row.id,
    projectId: row.project_id,
    to: { email: row.to_email, name: row.to_name },
    from: { email: row.from_email, name: row.from_name },
    replyTo: row.reply_to,
    subject: row.rendered_subject ?? row.subject,
    html: row.rendered_body ?? row.body,
    // A row rendered before the text part was stored (migration 029) gets one generated now.
    text: row.rendered_text ?? htmlToPlainText(row.rendered_body ?? row.body),
    // The caller's headers were checked at the API; rows stored before that check are cleaned here.
    headers: { ...withoutForbiddenHeaders(row.headers), ...oneClickHeaders({ type: row.type, topicId: row.topic_id }, links?.unsubscribeUrl) },
    attachments,
  };
}
