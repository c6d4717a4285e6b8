import type { z } from 'zod';
import { presentMessageContent } from './messageContent';
import type { CampaignOut } from '../schemas/campaigns';
import type { CampaignRow } from '../../db/campaigns';
import { iso } from '../../lib/time';

/** Response shapes of the campaigns routes, typed by their `*Out` schemas (api/schemas). */

export function presentCampaign(row: CampaignRow): z.input<typeof CampaignOut> {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    ...presentMessageContent(row),
    editor: row.editor ?? 'html',
    document: row.document ?? null,
    status: row.status,
    audienceType: row.audience_type,
    audienceCondition: row.audience_condition ?? null,
    segmentId: row.segment_id,
    topic: row.topic_id ?? null,
    scheduledFor: iso(row.scheduled_for),
    sendRatePerMinute: row.send_rate_per_minute ?? null,
    abTest: row.ab_test ?? null,
    tracking: row.tracking ?? null,
    archive: row.archive ?? false,
    kind: row.kind ?? 'REGULAR',
    ...(row.rss ? { feedUrl: row.rss.feedUrl, schedule: row.rss.schedule, template: row.rss.templateId } : {}),
    parentId: row.parent_id ?? null,
    totalRecipients: row.total_recipients,
    sentCount: row.sent_count,
    deliveredCount: row.delivered_count,
    openedCount: row.opened_count,
    clickedCount: row.clicked_count,
    bouncedCount: row.bounced_count,
    projectId: row.project_id,
    sentAt: iso(row.sent_at),
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}
