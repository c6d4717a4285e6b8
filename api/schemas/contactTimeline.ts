import { z } from 'zod';
import { Timestamp } from './common';
import { limit } from './analytics';
import { TIMELINE_KINDS, type TimelineKind } from '../../db/contactTimeline';
import { EMAIL_STATUSES } from '../../db/emails';
import { EXECUTION_STATUSES } from '../../db/executions';
import { INBOUND_KINDS } from '../../db/inbound';
import { ConsentSourceOut } from './consentSources';

/** `kind=email,event`: one or more kinds, comma-separated. */
const KindList = z
  .string()
  .max(200)
  .transform((s, ctx) => {
    const kinds = [
      ...new Set(
        s
          .split(',')
          .map((k) => k.trim())
          .filter(Boolean),
      ),
    ];
    if (!kinds.length || kinds.some((k) => !(TIMELINE_KINDS as readonly string[]).includes(k))) {
      ctx.addIssue({ code: 'custom', message: `kind must be a comma-separated list of ${TIMELINE_KINDS.join(', ')}` });
      return z.NEVER;
    }
    return kinds as TimelineKind[];
  })
  .describe(`comma-separated: ${TIMELINE_KINDS.join(', ')}; omit for every kind`);

export const TimelineQuery = z.object({
  kind: KindList.optional(),
  cursor: z.string().min(1).max(1000).optional().describe('the `cursor` of the previous page'),
  limit: limit(20, 100),
});

export const STORY_STEPS = ['sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained', 'failed'] as const;

const TimelineItemOut = z.object({
  kind: z.enum(TIMELINE_KINDS),
  id: z.string().describe("the source's id: the email, event, execution, inbound message, membership change or consent record"),
  at: Timestamp,
  title: z.string().describe("what happened, in English words; the kind's own object below holds what the sentence is made of"),
  detail: z.string().nullable().describe('a second line in English words (where a change came from, an error), or null'),
  links: z
    .object({
      emailId: z.string().optional().describe('GET /emails/:id for its story, GET /emails/:id/content for its rendered content'),
      campaignId: z.string().optional(),
      workflowId: z.string().optional(),
      executionId: z.string().optional(),
      segmentId: z.string().optional(),
      topicId: z.string().optional(),
      inboundId: z.string().optional().describe('GET /inbound/:id'),
    })
    .describe('the ids the item names'),
  email: z
    .object({
      subject: z.string(),
      status: z.enum(EMAIL_STATUSES),
      story: z.array(z.object({ step: z.enum(STORY_STEPS), at: Timestamp })).describe("the email's states over time, oldest first"),
      type: z.enum(['TRANSACTIONAL', 'MARKETING', 'HEADLESS']),
      origin: z.enum(['campaign', 'workflow']).nullable().describe('what sent it, or null for an email sent through the API'),
      error: z.string().nullable().describe("why it failed (the provider's words), or null"),
    })
    .optional()
    .describe('kind email only'),
  event: z
    .object({ name: z.string(), data: z.record(z.string(), z.unknown()) })
    .optional()
    .describe('kind event only'),
  workflow: z
    .object({
      id: z.string(),
      name: z.string().nullable().describe('null once the workflow is deleted'),
      status: z.enum(EXECUTION_STATUSES).describe("the run's status now"),
      error: z.string().nullable(),
    })
    .optional()
    .describe('kind workflow only: a run of a workflow'),
  segment: z
    .object({
      id: z.string(),
      name: z.string(),
      change: z.enum(['entered', 'left']),
      cause: z.enum(['list', 'compute']).describe("list: the static segment's list was changed; compute: the segment was computed"),
    })
    .optional()
    .describe('kind segment only'),
  topic: z
    .object({
      id: z.string(),
      slug: z.string(),
      name: z.string().nullable().describe('null once the topic is deleted'),
      subscribed: z.boolean(),
      source: ConsentSourceOut,
    })
    .optional()
    .describe('kind topic only'),
  consent: z.object({ subscribed: z.boolean(), source: ConsentSourceOut }).optional().describe('kind consent only'),
  inbound: z
    .object({
      kind: z.enum(INBOUND_KINDS).describe('MESSAGE is a reply'),
      subject: z.string().nullable(),
      from: z.string().nullable().describe('the From address'),
    })
    .optional()
    .describe('kind inbound only'),
});

export const TimelinePageOut = z.object({
  data: z.array(TimelineItemOut).describe('newest first'),
  cursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last page'),
  hasMore: z.boolean(),
});

export type TimelineItemOutput = z.input<typeof TimelineItemOut>;
