import { ApplicationFailure } from '@temporalio/common';
import type { ActivityDeps } from './deps';
import { findTemplate } from '../db/templates';
import { findRssCampaign, findRun, recordRun, type RunStatus } from '../db/rssCampaigns';
import { findCampaign, type RssItem } from '../db/campaigns';
import { requestSend } from '../db/campaignTransitions';
import { fetchFeedItems, FeedRefused, FeedUnreadable, newItems, type FeedGuardOptions } from '../services/rssFeed';
import { start } from '../services/temporal';
import { campaignSendStart } from '../temporal/workflows/campaignSend/start';

/** What a run did; ids and counts only (the items stay in Postgres: campaign_runs). */
export interface RssRunResult {
  status: RunStatus;
  items: number;
  sentCampaignId: string | null;
}

/** `options`: tests only (services/rssFeed.ts FeedGuardOptions). */
export function rssCampaignActivities(deps: ActivityDeps, options: FeedGuardOptions = {}) {
  const { knex } = deps;

  /** Sends a run's child campaign through the ordinary campaign send (idempotent: a DRAFT moves once, the workflow id is fixed). */
  async function sendChild(projectId: string, childId: string): Promise<void> {
    const sent = await requestSend(knex, projectId, childId, null);
    const row = sent && 'row' in sent ? sent.row : await findCampaign(knex, projectId, childId);
    if (row && row.status !== 'DRAFT') await start(deps.temporal, campaignSendStart, { campaign: row, config: deps.config });
  }

  return {
    /**
     * One run of an RSS campaign (docs/campaigns.md "RSS-to-email"): fetch and parse its feed through
     * the SSRF guard; items newer than the last send → a child campaign with them as `items`, sent by
     * `campaignSend`; none → nothing sent. Every run is recorded (campaign_runs) under `runId`, so a
     * retried attempt finds what the first one did instead of sending twice.
     */
    async runRssCampaign(input: { campaignId: string; runId: string }): Promise<RssRunResult> {
      const done = await findRun(knex, input.runId);
      if (done) {
        if (done.sent_campaign_id) await sendChild(done.project_id, done.sent_campaign_id);
        return { status: done.status, items: done.item_count, sentCampaignId: done.sent_campaign_id };
      }
      const campaign = await findRssCampaign(knex, input.campaignId);
      if (!campaign?.rss) throw ApplicationFailure.nonRetryable('the RSS campaign no longer exists', 'CampaignGone');
      let items: RssItem[];
      try {
        items = newItems(await fetchFeedItems(deps.config, campaign.rss.feedUrl, options), campaign.rss_last_item_at ?? null);
      } catch (err) {
        if (!(err instanceof FeedRefused) && !(err instanceof FeedUnreadable)) throw err;
        const error = err instanceof FeedRefused ? `refused: ${err.message}` : err.message;
        await knex.transaction((trx) => recordRun(trx, campaign, { id: input.runId, status: 'FAILED', items: [], error }));
        return { status: 'FAILED', items: 0, sentCampaignId: null };
      }
      if (!items.length) {
        await knex.transaction((trx) => recordRun(trx, campaign, { id: input.runId, status: 'NOTHING_NEW', items: [] }));
        return { status: 'NOTHING_NEW', items: 0, sentCampaignId: null };
      }
      // The template as it is now; the copy taken at creation when it was deleted since.
      const content = (await findTemplate(knex, campaign.project_id, campaign.rss.templateId)) ?? campaign;
      const run = await knex.transaction((trx) => recordRun(trx, campaign, { id: input.runId, status: 'SENT', items }, content));
      await sendChild(campaign.project_id, run.sent_campaign_id!);
      return { status: 'SENT', items: items.length, sentCampaignId: run.sent_campaign_id };
    },
  };
}
