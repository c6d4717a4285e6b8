import type { Knex } from 'knex';
import { DomainError } from '../lib/domainErrors';
import { createCampaign, type CampaignRow, type RssSettings } from '../db/campaigns';
import { findTemplate } from '../db/templates';
import { checkedCampaignFields, type CampaignFieldsInput } from './campaignFields';

/** What `POST /campaigns` with `kind: "RSS"` carries (api/schemas/rssCampaigns.ts), before its checks. */
export interface RssCampaignInput
  extends Omit<CampaignFieldsInput, 'subject' | 'body' | 'text' | 'from' | 'fromName' | 'replyTo' | 'abTest' | 'sendRatePerMinute'> {
  feedUrl: string;
  schedule: RssSettings['schedule'];
  template: string;
}

/**
 * Creates an RSS campaign in DRAFT: the regular checks (audience, topic, the template's verified
 * sender) on the template's content, which the row keeps as a copy (a run uses the template as it
 * is then, the copy only once the template is gone).
 */
export async function createRssCampaign(trx: Knex.Transaction, projectId: string, input: RssCampaignInput, senderWaived: boolean): Promise<CampaignRow> {
  const t = await findTemplate(trx, projectId, input.template);
  if (!t) throw new DomainError('invalid', 'Template not found in this project', { field: 'template', summary: 'Request validation failed' });
  const { feedUrl, schedule, template, ...rest } = input;
  const fields = await checkedCampaignFields(
    trx,
    projectId,
    { ...rest, subject: t.subject, body: t.body, text: t.text, from: t.from, fromName: t.from_name, replyTo: t.reply_to },
    senderWaived,
  );
  const row = await createCampaign(trx, projectId, fields);
  const rss: RssSettings = {
    feedUrl,
    schedule: { ...schedule, weekday: schedule.frequency === 'weekly' ? (schedule.weekday ?? 1) : null },
    templateId: template,
  };
  const [updated] = await trx<CampaignRow>('campaigns')
    .where({ id: row.id })
    .update({ kind: 'RSS', rss: JSON.stringify(rss) } as any)
    .returning('*');
  return updated;
}
