import type { CampaignRow } from '../../../db/campaigns';
import type { Config } from '../../../lib/config';
import { type StartOnce, startSpec } from '../../startSpec';
import { campaignStart } from '../../summaries';
import { campaignWorkflowId } from '../../workflowIds';
import type { campaignSend } from './index';

export interface CampaignSendStart {
  campaign: Pick<CampaignRow, 'id' | 'project_id' | 'name' | 'scheduled_for'>;
  /** The batch settings, and the time scale: how long a deferred recipient's wait really lasts (tests shorten it). */
  config: Pick<Config, 'campaigns' | 'workflows'>;
}

/** `campaignSend` under its deterministic id (a retried request or the sweep starts nothing new). */
export const campaignSendStart = startSpec('campaignSend', ({ campaign: c, config }: CampaignSendStart): StartOnce<typeof campaignSend> => {
  const scheduledFor = c.scheduled_for ? new Date(c.scheduled_for).toISOString() : null;
  const timeScale = config.workflows.timeScale;
  return {
    workflowId: campaignWorkflowId(c.id),
    args: [{ campaignId: c.id, projectId: c.project_id, scheduledFor, ...config.campaigns, ...(timeScale !== 1 ? { timeScale } : {}) }],
    ...campaignStart({ id: c.id, projectId: c.project_id, name: c.name, scheduledFor }),
    searchAttributes: { ProjectId: c.project_id, CampaignId: c.id },
    memo: { campaign: c.name },
  };
});
