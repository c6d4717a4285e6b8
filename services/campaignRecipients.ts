import type { Knex } from 'knex';
import type { Config } from '../lib/config';
import { campaignTextSource, type CampaignRow } from '../db/campaigns';
import { campaignEmailId, type RecipientEmail, type RecipientRow } from '../db/campaignEmails';
import { subjectFor } from '../db/campaignAbTest';
import { identityVariables } from '../lib/contactData';
import { deferRecipients, recordCapped } from '../db/campaignDeferrals';
import { claimMarketingSends, sendingPolicy } from '../db/sendingPolicy';
import { contactTimeZone, recipientDue } from '../lib/sendingPolicy';
import { parseLocalDateTime } from '../lib/zonedTime';
import type { TrackingChoice } from '../lib/trackingSettings';
import { linksFor, oneClickHeaders } from '../lib/unsubscribe';
import { viewInBrowserUrl } from '../lib/viewLinks';
import { type BatchRenderer, RenderError } from './render';
import { trackedBody } from './emailTracking';

/**
 * A campaign batch's recipients before their hand-over (activities/campaigns.ts sendCampaignBatch
 * is the activity around them): each one's email rendered, and the delivery controls that set
 * some aside for later.
 */

/** `variant`: the recipient's A/B test subject (db/campaignAbTest); null gets the winner's, or the campaign's subject. */
export async function renderRecipient(
  config: Config,
  c: CampaignRow,
  r: { contact_id: string; email: string; data: Record<string, unknown> | null; variant?: number | null },
  renderer: BatchRenderer,
  tracking: TrackingChoice,
  trackingBase?: string,
): Promise<RecipientEmail> {
  // Sent as a topic, its unsubscribe links (and the one-click header) leave that topic only.
  const links = linksFor(config, c.project_id, r.contact_id, c.topic_id);
  const id = campaignEmailId(c.id, r.contact_id);
  const variables = {
    ...(r.data ?? {}),
    ...identityVariables({ id: r.contact_id, email: r.email }),
    ...links,
    viewInBrowserUrl: viewInBrowserUrl(config, id),
    ...(c.rss_items ? { items: c.rss_items } : {}),
  };
  const base = {
    id,
    contactId: r.contact_id,
    to: r.email,
    headers: oneClickHeaders({ type: c.type, topicId: c.topic_id }, links.unsubscribeUrl),
    variant: r.variant ?? null,
  };
  try {
    const rendered = await renderer.render({ subject: subjectFor(c, r.variant ?? null), body: c.body, text: campaignTextSource(c) }, variables);
    const tracked = trackedBody(config, base.id, rendered.body, tracking, trackingBase);
    return {
      ...base,
      subject: rendered.subject,
      body: tracked.body,
      text: rendered.text,
      trackOpens: tracked.trackOpens,
      trackClicks: tracked.trackClicks,
      links: tracked.links,
    };
  } catch (err) {
    if (!(err instanceof RenderError)) throw err;
    return { ...base, subject: '', body: '', text: '', error: `render failed: ${err.message}` };
  }
}

/**
 * The delivery controls on a page's fresh recipients (docs/campaigns.md): those whose moment is
 * later (their local send time, the end of their quiet hours) are deferred, MARKETING ones over
 * the frequency cap are recorded as capped (`result` counts both); the rest are returned to be handed over now.
 */
export async function applyDeliveryControls<R extends RecipientRow>(
  knex: Knex,
  c: CampaignRow,
  fresh: R[],
  mayDefer: boolean,
  result: { deferred?: number; capped?: number },
): Promise<R[]> {
  const policy = await sendingPolicy(knex, c.project_id);
  if (!policy || fresh.length === 0) return fresh;
  const local = c.local_schedule ? parseLocalDateTime(c.local_schedule) : null;
  let now = fresh;
  if (mayDefer && (local || (c.type === 'MARKETING' && policy.quietHours))) {
    const at = Date.now();
    const deferred: { contactId: string; dueAt: number }[] = [];
    now = fresh.filter((r) => {
      const due = recipientDue(at, policy, c.type, contactTimeZone(r.data, policy.timezone), local);
      if (due <= at) return true;
      deferred.push({ contactId: r.contact_id, dueAt: due });
      return false;
    });
    await deferRecipients(knex, c.id, deferred);
    result.deferred = deferred.length;
  }
  if (c.type !== 'MARKETING' || !policy.frequencyCap) return now;
  const allowed = await claimMarketingSends(knex, {
    projectId: c.project_id,
    cap: policy.frequencyCap,
    sends: now.map((r) => ({ emailId: campaignEmailId(c.id, r.contact_id), contactId: r.contact_id })),
  });
  const capped = now.filter((r) => !allowed.has(campaignEmailId(c.id, r.contact_id)));
  result.capped = await recordCapped(
    knex,
    c.id,
    capped.map((r) => r.contact_id),
  );
  return now.filter((r) => allowed.has(campaignEmailId(c.id, r.contact_id)));
}
