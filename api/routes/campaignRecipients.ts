import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { route } from '../route';
import { heavyReader } from '../../services/reads';
import { badRequest, notFound } from '../errors';
import { IdParams } from '../schemas/common';
import { CampaignRecipientPage, CampaignRecipientsQuery } from '../schemas/campaignRecipients';
import { findCampaign } from '../../db/campaigns';
import { listCampaignRecipients, parseRecipientCursor, type RecipientReportRow, type RecipientStatus } from '../../db/campaignRecipientReport';
import { csvLine } from '../../lib/csv';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

const present = (r: RecipientReportRow) => ({
  emailId: r.email_id,
  contactId: r.contact_id,
  email: r.to_email,
  status: r.status,
  sentAt: iso(r.sent_at),
  deliveredAt: iso(r.delivered_at),
  openedAt: iso(r.opened_at),
  clickedAt: iso(r.clicked_at),
  bouncedAt: iso(r.bounced_at),
  complainedAt: iso(r.complained_at),
  unsubscribedAt: iso(r.unsubscribed_at),
});

const CSV_COLUMNS = ['email', 'contactId', 'status', 'sentAt', 'deliveredAt', 'openedAt', 'clickedAt', 'bouncedAt', 'complainedAt', 'unsubscribedAt'] as const;

/** Every matching recipient, a page of the keyset at a time, so a million-recipient export never sits in memory. */
async function* csvRows(knex: Knex, campaignId: string, status: RecipientStatus | undefined) {
  yield csvLine([...CSV_COLUMNS]);
  let after: string | undefined;
  for (;;) {
    const page = await listCampaignRecipients(knex, { campaignId, status, after, limit: 1000 });
    for (const row of page.rows) {
      const r = present(row);
      yield csvLine(CSV_COLUMNS.map((c) => r[c] ?? ''));
    }
    if (!page.hasMore) return;
    after = page.rows[page.rows.length - 1].contact_id;
  }
}

export default [
  route({
    method: 'get',
    path: '/campaigns/:id/recipients',
    auth: 'secret',
    scope: 'campaigns',
    tag: 'campaigns',
    summary: "A campaign's recipients, each with when their email was first delivered, opened, clicked, bounced, complained or unsubscribed",
    params: IdParams,
    query: CampaignRecipientsQuery,
    responses: {
      200: {
        description: 'a page of recipients in contact id order, or (format=csv) all of them as CSV',
        schema: CampaignRecipientPage,
        contentType: ['application/json', 'text/csv'],
      },
      400: { description: 'a cursor this route did not hand out' },
    },
    async handler(ctx, { params, query, project }) {
      const campaign = await findCampaign(ctx.deps.knex, project.id, params.id);
      if (!campaign) throw notFound('Campaign');
      if (query.format === 'csv') {
        ctx.type = 'text/csv; charset=utf-8';
        ctx.set('Content-Disposition', `attachment; filename="campaign-${campaign.id}-recipients${query.status ? `-${query.status}` : ''}.csv"`);
        ctx.body = Readable.from(csvRows(await heavyReader(ctx.deps, project.id), campaign.id, query.status));
        return;
      }
      const after = query.cursor === undefined ? undefined : parseRecipientCursor(query.cursor);
      if (after === null) throw badRequest('Invalid cursor: pass the cursor of a previous page');
      const page = await listCampaignRecipients(await heavyReader(ctx.deps, project.id), {
        campaignId: campaign.id,
        status: query.status,
        after,
        limit: query.limit,
      });
      return { data: page.rows.map(present), cursor: page.cursor, hasMore: page.hasMore };
    },
  }),
];
