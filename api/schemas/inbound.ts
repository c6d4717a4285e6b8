import { z } from 'zod';
import { IdParams, Timestamp } from './common';
import { limit } from './analytics';
import { INBOUND_KINDS } from '../../db/inbound';

export const InboundIdParams = IdParams;

export const InboundListQuery = z.object({
  limit: limit(20, 100),
  cursor: z.string().min(1).max(1000).optional().describe('the `cursor` of the previous page'),
  kind: z.enum(INBOUND_KINDS).optional().describe('only messages of this kind'),
});

const Auth = z.object({ spf: z.string(), dkim: z.string(), dmarc: z.string() }).describe("mailauth's results (pass, fail, none, softfail, temperror, …)");

export const InboundSummaryOut = z.object({
  id: z.string(),
  kind: z
    .enum(INBOUND_KINDS)
    .describe(
      'HARD_BOUNCE / SOFT_BOUNCE / COMPLAINT: a report to a VERP return path, applied to its email; REPORT: other mail to a return path; MESSAGE: mail to the project; DMARC_FAILED: mail to the project whose DMARC check failed (no event)',
    ),
  emailId: z.string().nullable().describe('the email a bounce, complaint or reply is about'),
  contactId: z.string().nullable().describe("the sender (mail to the project) or the email's recipient (reports)"),
  contactEmail: z.string().nullable().describe("the matched contact's address; null when none matched or it was since erased"),
  mailFrom: z.string().nullable().describe('the envelope sender; null for the empty return path of reports'),
  to: z.array(z.string()).describe('the envelope recipients of this project'),
  from: z.string().nullable(),
  subject: z.string().nullable(),
  messageId: z.string().nullable(),
  inReplyTo: z.string().nullable(),
  status: z.string().nullable().describe('the DSN status code (5.1.1), or the feedback type of a complaint'),
  diagnostic: z.string().nullable().describe("the reporting server's diagnostic, or why a report was not applied"),
  auth: Auth.nullable().describe('for mail to the project'),
  size: z.number().int(),
  createdAt: Timestamp,
});

export const InboundOut = InboundSummaryOut.extend({
  headers: z
    .array(z.object({ name: z.string(), value: z.string() }))
    .describe('the header fields of the message as received, in order, each value unfolded (at most 200)'),
  raw: z.string().describe('the message as received (UTF-8; bytes that are not UTF-8 read as U+FFFD)'),
});

export const InboundPageOut = z.object({
  data: z.array(InboundSummaryOut),
  cursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last page'),
  hasMore: z.boolean(),
});
