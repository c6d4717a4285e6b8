import { getCampaign } from '../../db/campaigns';
import { publishSystemMessage, PublishDeps } from './publish';

const ENDED = { 'campaign.sent': 'SENT', 'campaign.cancelled': 'CANCELLED' } as const;

/**
 * `campaign.sent` / `campaign.cancelled`: campaign-wide, no contact, so no event row (they would
 * otherwise show as a contact-less event among the project's tracked ones). Queued once per
 * endpoint, however often the campaign's activity is retried.
 */
export async function publishCampaignEnd(deps: PublishDeps, campaignId: string, type: keyof typeof ENDED): Promise<void> {
  const c = await getCampaign(deps.knex, campaignId);
  if (!c || c.status !== ENDED[type]) return;
  await publishSystemMessage(deps, {
    projectId: c.project_id,
    type,
    sourceKey: `${type}:${c.id}`,
    data: {
      campaignId: c.id,
      name: c.name,
      status: c.status,
      totalRecipients: c.total_recipients,
      sentCount: c.sent_count,
      failedCount: c.failed_count,
      sentAt: c.sent_at,
    },
  });
}
