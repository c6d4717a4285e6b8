import { z } from 'zod';
import { Timestamp } from './common';
import { limit } from './analytics';
import { RECIPIENT_STATUSES } from '../../db/campaignRecipientReport';

export const CampaignRecipientsQuery = z.object({
  status: z
    .enum(RECIPIENT_STATUSES, { error: `Status must be one of ${RECIPIENT_STATUSES.join(', ')}` })
    .optional()
    .describe('only the recipients whose email reached this state (at any time): delivered, opened, clicked, bounced, complained or unsubscribed'),
  limit: limit(50, 200),
  cursor: z.string().min(1).max(1000).optional().describe('the `cursor` of the previous page'),
  format: z.enum(['json', 'csv']).default('json').describe('csv: every matching recipient as a CSV download (limit and cursor are ignored)'),
});

const at = (what: string) => Timestamp.nullable().describe(`when the email was first ${what}; null if never`);

export const CampaignRecipientOut = z.object({
  emailId: z.string(),
  contactId: z.string(),
  email: z.string().describe('the address the email went to'),
  status: z.string().describe("the email's delivery status"),
  sentAt: at('handed to the provider'),
  deliveredAt: at('delivered'),
  openedAt: at('opened'),
  clickedAt: at('clicked'),
  bouncedAt: at('reported bounced'),
  complainedAt: at('reported as spam'),
  unsubscribedAt: at('followed by an opt-out of the recipient'),
});

export const CampaignRecipientPage = z.object({
  data: z.array(CampaignRecipientOut),
  cursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last page'),
  hasMore: z.boolean(),
});
