import { z } from 'zod';
import { Email, Timestamp } from './common';
import { ConsentRecordOut, ContactOut } from './contacts';
import { ExecutionOut } from './workflows';
import { FilterTree } from './filters';
import { ViewColumn } from './contactViews';
import { EMAIL_STATUSES } from '../../db/emails';

/** At most this many addresses per POST /contacts/erase: each is its own transaction. */
export const MAX_ERASE_ADDRESSES = 100;

export const ContactDeleteQuery = z.object({
  erase: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .describe('true: erase the person everywhere (docs/privacy.md "Erasure"), not only the contact'),
});

export const EraseBody = z.object({
  emails: z.array(Email).min(1).max(MAX_ERASE_ADDRESSES).describe(`1 to ${MAX_ERASE_ADDRESSES} addresses, contacts of the project or not`),
});

export const ErasedOut = z.object({
  addresses: z.number().int().describe('distinct addresses erased (compared lowercase)'),
  contacts: z.number().int().describe('how many of them were contacts of the project'),
});

// ───────────────────────────── export ─────────────────────────────

const ExportEventOut = z.object({ id: z.string(), name: z.string(), data: z.record(z.string(), z.unknown()), createdAt: Timestamp });

const ExportEmailOut = z.object({
  id: z.string(),
  type: z.string(),
  status: z.enum(EMAIL_STATUSES),
  from: z.string(),
  subject: z.string().describe('as rendered for the contact'),
  templateId: z.string().nullable(),
  campaignId: z.string().nullable(),
  workflowExecutionId: z.string().nullable(),
  createdAt: Timestamp,
  sentAt: Timestamp.nullable(),
  deliveredAt: Timestamp.nullable(),
  openedAt: Timestamp.nullable(),
  clickedAt: Timestamp.nullable(),
  bouncedAt: Timestamp.nullable(),
  complainedAt: Timestamp.nullable(),
});

const ExportInboundOut = z.object({
  id: z.string(),
  kind: z.string().describe('MESSAGE (a reply), HARD_BOUNCE, SOFT_BOUNCE, COMPLAINT, REPORT, DMARC_FAILED'),
  from: z.string().nullable(),
  subject: z.string().nullable(),
  emailId: z.string().nullable().describe('the email it answers or reports on'),
  receivedAt: Timestamp,
});

export const ContactRecordOut = z.object({
  exportedAt: Timestamp,
  contact: ContactOut.describe('with its topic states and double opt-in state'),
  consent: z.array(ConsentRecordOut).describe('the consent record, oldest first'),
  events: z.array(ExportEventOut).describe('every event of the contact, oldest first'),
  emails: z.array(ExportEmailOut).describe('every email sent (or to be sent) to the contact, oldest first'),
  executions: z.array(ExecutionOut).describe('its workflow executions with their contexts, oldest first'),
  inbound: z.array(ExportInboundOut).describe('mail received from the contact or about its emails'),
});

export const ExportCreate = z.object({
  format: z.literal('csv').default('csv').describe('only csv'),
  filter: FilterTree.optional().describe('only the contacts matching this filter tree (as segments); omitted: every contact'),
  columns: z
    .array(ViewColumn)
    .min(1)
    .max(30)
    .optional()
    .describe("only these columns, in this order (a saved view's); omitted: id, email, subscribed, createdAt, updatedAt and every registered field"),
  search: z.string().max(320).optional().describe('only the contacts this search also matches (as GET /contacts `search`)'),
});

/** The same request as a query string (`GET /contacts/export?format=csv&filter=<JSON>`): the filter tree as JSON. */
export const ExportQuery = z.object({
  format: z.literal('csv').describe('only csv'),
  filter: z
    .string()
    .transform((raw, ctx) => {
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'filter must be a filter tree as JSON' });
        return z.NEVER;
      }
    })
    .pipe(FilterTree)
    .optional()
    .describe('a filter tree as JSON (as segments); omitted: every contact'),
});
