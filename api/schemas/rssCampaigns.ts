import { z } from 'zod';
import { Timestamp, Uuid } from './common';
import { FilterTree } from './filters';
import { TrackingChoiceIn } from './tracking';
import { TimeZoneName } from './settings';
import { AudienceType, CampaignBody } from './campaigns';
import { CAMPAIGN_TYPES } from '../../db/campaigns';

/**
 * RSS campaigns (docs/campaigns.md "RSS-to-email"): `POST /campaigns` (and `PUT`) with `kind: "RSS"`
 * take this body instead of the regular one; a body without `kind` (or `kind: "REGULAR"`) is a
 * regular campaign, unchanged. The content comes from the template (its subject, body, text and
 * sender), rendered per recipient with the run's feed items as `items`.
 */

const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

export const RssSchedule = z
  .strictObject({
    frequency: z.enum(['daily', 'weekly']),
    time: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'time is HH:MM (24-hour)'),
    timezone: TimeZoneName,
    weekday: z
      .union([z.number().int().min(0).max(6), z.enum(DAYS)])
      .optional()
      .describe('weekly only: 0 (Sunday) to 6, or a day name; default Monday')
      .transform((d) => (typeof d === 'string' ? DAYS.indexOf(d) : d)),
  })
  .describe('when runs happen: daily or weekly at a local time in a time zone');

const FeedUrl = z
  .string()
  .url()
  .max(2048)
  .refine((u) => /^https?:\/\//i.test(u), 'feedUrl must be an http or https URL');

export const RssCampaignBody = z
  .strictObject({
    kind: z.literal('RSS'),
    name: z.string().trim().min(1).max(200),
    description: z.string().max(2000).nullable().optional(),
    feedUrl: FeedUrl,
    schedule: RssSchedule,
    template: Uuid.describe("the template whose subject, body and sender each run's email uses; `{% for item in items %}` lists the new items"),
    type: z.enum(CAMPAIGN_TYPES).default('MARKETING'),
    audienceType: AudienceType,
    segmentId: Uuid.nullable().optional(),
    audienceCondition: FilterTree.nullable().optional(),
    topic: z.string().min(1).max(100).nullable().optional(),
    tracking: TrackingChoiceIn.nullable().optional(),
    archive: z.boolean().optional(),
  })
  .superRefine((v, ctx) => {
    if (v.audienceType === 'SEGMENT' && !v.segmentId)
      ctx.addIssue({ code: 'custom', path: ['segmentId'], message: 'segmentId is required when audienceType is SEGMENT' });
    if (v.audienceType === 'FILTERED' && !v.audienceCondition)
      ctx.addIssue({ code: 'custom', path: ['audienceCondition'], message: 'audienceCondition is required when audienceType is FILTERED' });
  });
export type RssCampaignBody = z.infer<typeof RssCampaignBody>;

const isRss = (v: unknown) => typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'RSS';

/**
 * The body `POST /campaigns` and `PUT /campaigns/:id` validate: the RSS body when `kind` is "RSS",
 * else the regular one, with that schema's own issues (so a regular campaign's errors are unchanged).
 * `body: CampaignBody` still documents the route; this one validates (RouteDef `bodyFor`).
 */
export const CampaignOrRssBody = z.unknown().transform((v, ctx) => {
  const r = isRss(v) ? RssCampaignBody.safeParse(v) : CampaignBody.safeParse(v);
  if (r.success) return r.data as CampaignBody | RssCampaignBody;
  for (const issue of r.error.issues) ctx.addIssue(issue as z.IssueData);
  return z.NEVER;
});

export const RssRunOut = z.object({
  id: z.string(),
  status: z.enum(['SENT', 'NOTHING_NEW', 'FAILED']),
  itemCount: z.number().int(),
  items: z.array(z.object({ title: z.string(), link: z.string(), summary: z.string(), content: z.string(), date: z.string().nullable() })),
  sentCampaignId: z.string().nullable().describe('the campaign this run sent (its stats are that campaign’s)'),
  emailsSent: z.number().int().describe('emails that campaign has handed over so far (0 when the run sent nothing)'),
  error: z.string().nullable(),
  startedAt: Timestamp,
  finishedAt: Timestamp.nullable(),
});

export const RssRunsOut = z.object({ data: z.array(RssRunOut) });

export const RssRunNowOut = z.object({ success: z.literal(true), data: z.object({ runId: z.string() }), message: z.string() });
