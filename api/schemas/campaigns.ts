import { z } from 'zod';
import { Email, MessageContentOut, PageQuery, Timestamp, Uuid } from './common';
import { FilterTree } from './filters';
import { TrackingChoiceIn, TrackingChoiceOut } from './tracking';
import { CountEstimated } from './contactFields';
import { AUDIENCE_TYPES, CAMPAIGN_KINDS, CAMPAIGN_SORTS, CAMPAIGN_STATUSES, CAMPAIGN_TYPES } from '../../db/campaigns';
import { checkTemplate } from '../../services/render';
import { AB_TEST_METRICS } from '../../db/campaignAbTest';
import { durationSchema } from '../../temporal/steps';
import { INTERVALS } from '../../db/analytics';
import { Instant } from './analytics';
import { documentField, Editor } from './templates';
import { EmailDocument } from '../../lib/emailDocument';

/** Subject and body are Liquid sources rendered per recipient; one that cannot parse would fail every email. */
const liquid = (source: string, ctx: z.RefinementCtx) => {
  const problem = checkTemplate(source);
  if (problem) ctx.addIssue({ code: 'custom', message: `not a valid template: ${problem}` });
};

const noLineBreaks = [(s: string) => !/[\r\n]/.test(s), 'must not contain line breaks'] as const;

export const CampaignStatus = z.enum(CAMPAIGN_STATUSES);
export const AudienceType = z.enum(AUDIENCE_TYPES);
const CampaignType = z.enum(CAMPAIGN_TYPES);

/** A campaign subject: the campaign's own and each A/B test subject. */
const Subject = z
  .string()
  .min(1)
  .max(998)
  .refine(...noLineBreaks)
  .superRefine(liquid);

/**
 * An A/B subject test (extension of the spec, docs/campaigns.md): `testPercent` of the audience is
 * split evenly across the subjects; after `winnerAfter` (the DELAY step's duration) the subject with
 * the best rate of `metric` goes to the rest, ties keeping the first.
 */
export const AbTest = z
  .strictObject({
    subjects: z.array(Subject).min(2, 'an A/B test has 2 to 5 subjects').max(5, 'an A/B test has 2 to 5 subjects'),
    testPercent: z.number().int('testPercent must be a whole number').min(1, 'testPercent must be 1 to 50').max(50, 'testPercent must be 1 to 50'),
    winnerAfter: durationSchema(z),
    metric: z.enum(AB_TEST_METRICS),
  })
  .describe(
    'A/B subject test: the share of the audience in the test group, split evenly across the subjects (Liquid); after winnerAfter the subject with the best open (or click) rate goes to the rest',
  );

/**
 * Create and full replace (PUT) take the same body. `segmentId` is required for SEGMENT and
 * `audienceCondition` for FILTERED; the one the audience type does not use is ignored.
 */
export const CampaignBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    description: z.string().max(2000).nullable().optional(),
    subject: Subject,
    body: z
      .string()
      .min(1)
      .superRefine(liquid)
      .optional()
      .describe('HTML (editor "html", required); for a blocks campaign it is compiled from `document` and read-only'),
    editor: Editor.default('html').describe('"blocks": the content is `document`, compiled once when the campaign is saved'),
    document: documentField,
    text: z
      .string()
      .min(1)
      .superRefine(liquid)
      .nullable()
      .optional()
      .describe('Liquid source of the text/plain part; null or omitted: generated from the rendered HTML body'),
    from: Email,
    // Goes into the From header: a line break would let it inject headers.
    fromName: z
      .string()
      .max(200)
      .refine(...noLineBreaks)
      .nullable()
      .optional(),
    replyTo: Email.nullable().optional(),
    type: CampaignType.default('MARKETING'),
    audienceType: AudienceType,
    segmentId: Uuid.nullable().optional(),
    audienceCondition: FilterTree.nullable().optional(),
    topic: z
      .string()
      .min(1)
      .max(100)
      .nullable()
      .optional()
      .describe(
        'topic id or slug: the campaign goes only to contacts subscribed to it (and globally), and its unsubscribe links leave that topic only; null or omitted: no topic',
      ),
    sendRatePerMinute: z
      .number()
      .int('sendRatePerMinute must be a whole number')
      .min(1, 'sendRatePerMinute must be at least 1')
      .max(1_000_000)
      .nullable()
      .optional()
      .describe('paces the hand-over to at most this many emails per minute (warm-up of a new domain); null or omitted: no pacing'),
    abTest: AbTest.nullable().optional().describe('null or omitted: no A/B test'),
    archive: z
      .boolean()
      .optional()
      .describe('list it in the public archive (/archive/<project slug>) once SENT; default false; PATCH changes it in any status'),
    tracking: TrackingChoiceIn.nullable()
      .optional()
      .describe(
        "first-party open and click tracking of this campaign's emails (docs/tracking.md); a key left out, null or omitted: the project's settings for the campaign's type",
      ),
  })
  .superRefine((v, ctx) => {
    if (v.editor === 'blocks') {
      if (v.body !== undefined)
        ctx.addIssue({ code: 'custom', path: ['body'], message: 'body is compiled from the document for a blocks campaign: send document, not body' });
      if (v.document == null) ctx.addIssue({ code: 'custom', path: ['document'], message: 'document is required when editor is blocks' });
    } else if (v.body === undefined) ctx.addIssue({ code: 'custom', path: ['body'], message: 'body is required' });
    if (v.audienceType === 'SEGMENT' && !v.segmentId)
      ctx.addIssue({ code: 'custom', path: ['segmentId'], message: 'segmentId is required when audienceType is SEGMENT' });
    if (v.audienceType === 'FILTERED' && !v.audienceCondition) {
      ctx.addIssue({ code: 'custom', path: ['audienceCondition'], message: 'audienceCondition is required when audienceType is FILTERED' });
    }
  });
export type CampaignBody = z.infer<typeof CampaignBody>;

export const CampaignListQuery = PageQuery.extend({
  // An unrecognised status is a 400 (spec); sort and direction fall back to their defaults instead.
  status: CampaignStatus.optional(),
  search: z.string().trim().max(200).optional(),
  sort: z.enum(CAMPAIGN_SORTS).catch('createdAt'),
  dir: z.enum(['asc', 'desc']).catch('desc'),
});

/**
 * `scheduledFor` is whatever a date parser accepts (checked by the route, which answers 400 for an
 * unparseable one); omitted or null sends at once.
 */
export const CampaignSendBody = z.object({
  scheduledFor: z
    .unknown()
    .optional()
    .describe('timestamp string (anything `new Date()` parses) or null; with recipientTimezone, a local date-time with no offset'),
  recipientTimezone: z
    .boolean()
    .optional()
    .describe("hand each recipient over at scheduledFor on their own clock (data.timezone, else the project's); recipients whose moment has passed go at once"),
});

/** PATCH /campaigns/:id: the settings that may change in any status. */
export const CampaignPatchBody = z.strictObject({
  archive: z.boolean().describe('list it in the public archive (/archive/<project slug>) once SENT'),
});

export const CampaignTestBody = z.object({ email: Email });

export const CampaignOut = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  ...MessageContentOut,
  editor: Editor,
  document: EmailDocument.nullable().describe('The block document of a blocks campaign; `body` is its compiled HTML'),
  type: CampaignType,
  status: CampaignStatus,
  audienceType: AudienceType,
  audienceCondition: z.unknown().nullable(),
  segmentId: z.string().nullable(),
  topic: z.string().nullable().describe('the id of the topic it is sent as'),
  scheduledFor: Timestamp.nullable(),
  sendRatePerMinute: z.number().int().nullable(),
  abTest: AbTest.nullable(),
  tracking: TrackingChoiceOut.nullable().describe("the campaign's own tracking choice; null: the project's settings for its type"),
  archive: z.boolean().describe('listed in the public archive once SENT'),
  kind: z.enum(CAMPAIGN_KINDS).describe('REGULAR, or RSS: a recurring feed digest (docs/campaigns.md "RSS-to-email")'),
  feedUrl: z.string().optional().describe('RSS only'),
  schedule: z
    .object({ frequency: z.enum(['daily', 'weekly']), time: z.string(), timezone: z.string(), weekday: z.number().int().nullable().optional() })
    .optional()
    .describe('RSS only'),
  template: z.string().optional().describe('RSS only: the template id'),
  parentId: z.string().nullable().describe('the RSS campaign this campaign was sent for; null for others'),
  totalRecipients: z.number().int(),
  sentCount: z.number().int(),
  deliveredCount: z.number().int(),
  openedCount: z.number().int(),
  clickedCount: z.number().int(),
  bouncedCount: z.number().int(),
  projectId: z.string(),
  sentAt: Timestamp.nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const CampaignEnvelope = z.object({ success: z.literal(true), data: CampaignOut });

export const CampaignPage = z.object({
  data: z.array(CampaignOut),
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
});

export const CampaignSendOut = z.object({
  success: z.literal(true),
  data: z.object({ id: z.string(), name: z.string(), status: CampaignStatus, scheduledFor: Timestamp.nullable() }),
  message: z.string(),
});

export const CampaignTestOut = z.object({
  success: z.literal(true),
  data: z.object({ emailId: z.string(), to: z.string() }),
  message: z.string(),
});

export const CampaignStatsOut = z.object({
  totalRecipients: z.number().int(),
  sent: z.number().int(),
  delivered: z.number().int(),
  opened: z.number().int(),
  clicked: z.number().int(),
  bounced: z.number().int(),
  complained: z.number().int(),
  unsubscribed: z.number().int(),
  failed: z.number().int(),
  openRate: z.number().describe('opened / sent, 0 to 1'),
  clickRate: z.number().describe('clicked / sent, 0 to 1'),
  bounceRate: z.number().describe('bounced / sent, 0 to 1'),
  pending: z.number().int().describe('recipients deferred to a later moment (quiet hours, their local send time), not handed over yet'),
  capped: z.number().int().describe('MARKETING recipients skipped by the frequency cap'),
  pacing: z
    .object({
      ratePerSecond: z.number().describe('deliveries per second the hand-over is held to at most'),
      source: z
        .enum(['project', 'campaign'])
        .describe(
          "project: the project's send throttle (settings sendRatePerSecond, else SEND_RATE_PER_SECOND); campaign: its own sendRatePerMinute, the lower one",
        ),
    })
    .describe('the rate the hand-over is held to (extension)'),
  variants: z
    .array(z.object({ subject: z.string(), sent: z.number().int(), opened: z.number().int(), clicked: z.number().int(), winner: z.boolean() }))
    .optional()
    .describe(
      "only for a campaign with an A/B test: each subject's test group (the rest is in the totals), in the test's order; winner is true on the chosen one",
    ),
  engagement: z
    .object({
      opens: z.number().int().describe('human opens, repeats included (opened counts each email once)'),
      clicks: z.number().int().describe('human clicks, repeats included (clicked counts each email once)'),
      machineOpens: z
        .number()
        .int()
        .describe('pixel fetches by machines: HEAD requests, prefetchers and scanners right after hand-over; not in opened or opens'),
      machineClicks: z.number().int().describe('link fetches by machines; not in clicked or clicks'),
    })
    .describe('first-party tracking (docs/tracking.md); zero for emails tracked by a provider'),
});

// ───────────────────────────── provider events ─────────────────────────────

/**
 * SendGrid's Event Webhook body: an array of event objects. Each event's own fields are read
 * leniently (an unknown or malformed one is ignored, not refused), or one odd event would make the
 * provider retry the whole batch for days.
 */
export const SendgridEventBatch = z.array(z.record(z.string(), z.unknown())).max(10_000);

export const ProviderEventsOut = z.object({
  success: z.literal(true),
  data: z.object({
    received: z.number().int(),
    applied: z.number().int(),
    duplicates: z.number().int(),
    unmatched: z.number().int(),
    ignored: z.number().int(),
  }),
});

export const CampaignAudienceOut = z.object({
  count: z.number().int().describe('contacts the campaign would go to if it started now (its audience, subscription and topic applied)'),
  estimated: CountEstimated.describe(
    'present when `count` is an estimate, as POST /contacts/count estimates (an audience of all contacts or a filter; a segment audience is always counted); sending snapshots the exact audience',
  ),
});

/** Omitted, the window is the campaign's: from when it started sending (else created) to now, in hours up to three days, else days. */
export const CampaignTimeseriesQuery = z.object({
  interval: z.enum(INTERVALS).optional().describe('hour or day; default: hour for a window of up to three days, else day'),
  from: Instant.optional().describe('inclusive; default: when the campaign started sending (else when it was created)'),
  to: Instant.optional().describe('exclusive; default: now (at most 90 days after from)'),
});

export const CampaignTimeseriesOut = z.object({
  interval: z.enum(INTERVALS),
  from: Timestamp,
  to: Timestamp,
  totals: z.object({ sent: z.number().int(), opened: z.number().int(), clicked: z.number().int() }),
  points: z.array(
    z.object({
      t: Timestamp.describe('bucket start (UTC)'),
      sent: z.number().int().describe('emails handed over'),
      opened: z.number().int().describe('emails first opened by a person'),
      clicked: z.number().int().describe('emails first clicked by a person'),
    }),
  ),
});
