import { z } from 'zod';
import { IdParams, Timestamp } from './common';
import { ContactIdParams } from './contacts';
import { limit } from './analytics';
import { EMAIL_EVENT_TYPES } from '../../db/emailQueries';

import { EMAIL_STATUSES } from '../../db/emails';
import { SendAt } from './send';

export const EmailIdParams = IdParams;

export const EmailListQuery = z.object({
  limit: limit(20, 100),
  cursor: z.string().min(1).max(1000).optional().describe('the `cursor` of the previous page'),
  contactId: ContactIdParams.shape.id.optional().describe('only emails to this contact'),
  status: z.enum(EMAIL_STATUSES).optional().describe('only emails in this status'),
});

const EmailSummaryOut = z.object({
  id: z.string(),
  to: z.string().describe('the recipient address'),
  contactId: z.string().nullable(),
  subject: z.string().describe('as rendered for the recipient, once rendered; else the source subject'),
  type: z.enum(['TRANSACTIONAL', 'MARKETING', 'HEADLESS']),
  status: z.enum(EMAIL_STATUSES),
  templateId: z.string().nullable(),
  campaignId: z.string().nullable(),
  workflowExecutionId: z.string().nullable().describe('the workflow execution whose SEND_EMAIL step sent it; null otherwise'),
  sendAt: Timestamp.nullable().describe("a scheduled send's time (status SCHEDULED until then); null for an email sent at once"),
  createdAt: Timestamp,
});

export const EmailEventOut = z.object({
  type: z.enum(EMAIL_EVENT_TYPES),
  at: Timestamp,
  data: z
    .record(z.string(), z.unknown())
    .describe('what the event says: `url` for clicked, `reason` for bounced, `error` for failed, `provider`, `campaignId`'),
});

export const EmailOut = EmailSummaryOut.extend({
  events: z.array(EmailEventOut).describe("the email's lifecycle, oldest first"),
});

export const EmailPageOut = z.object({
  data: z.array(EmailSummaryOut),
  cursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last page'),
  hasMore: z.boolean(),
});

export type EmailSummaryOutput = z.input<typeof EmailSummaryOut>;

export const RescheduleBody = z.object({
  sendAt: SendAt.describe('the new time (ISO 8601, at most 30 days ahead; a past time sends now)'),
});

export const EmailContentOut = z.object({
  subject: z.string().nullable().describe('as rendered for the recipient; null once the content is gone'),
  html: z.string().nullable().describe('the rendered HTML; null before it is rendered (scheduled, queued) or once it is gone'),
  gone: z.boolean().describe("the content was removed (retention, the contact's erasure)"),
});
