import { z } from 'zod';
import { Timestamp } from './common';
import { ACTIVITY_TYPES, ActivityType } from '../../db/activity';
import { days, Instant, limit } from './analytics';

/** `type=opened,clicked`: one or more activity types, comma-separated. */
const TypeList = z
  .string()
  .max(500)
  .transform((s, ctx) => {
    const types = [
      ...new Set(
        s
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean),
      ),
    ];
    const unknown = types.filter((t) => !(ACTIVITY_TYPES as readonly string[]).includes(t));
    if (unknown.length || types.length === 0) {
      ctx.addIssue({ code: 'custom', message: `type must be a comma-separated list of ${ACTIVITY_TYPES.join(', ')}` });
      return z.NEVER;
    }
    return types as ActivityType[];
  })
  .describe(`comma-separated: ${ACTIVITY_TYPES.join(', ')}`);

export const ActivityQuery = z.object({
  limit: limit(20, 100),
  cursor: z.string().min(1).max(1000).optional().describe('the `cursor` of the previous page'),
  type: TypeList.optional(),
  from: Instant.optional().describe('at or after (inclusive)'),
  to: Instant.optional().describe('before (exclusive)'),
});

const Type = z.enum(ACTIVITY_TYPES);

const ActivityItemOut = z.object({
  id: z.string().describe('the event id, or the email id for `failed`'),
  type: Type,
  occurredAt: Timestamp,
  contact: z.object({ id: z.string(), email: z.string().nullable() }).nullable(),
  email: z
    .object({
      id: z.string(),
      subject: z.string(),
      to: z.string(),
      campaignId: z.string().nullable(),
      templateId: z.string().nullable(),
      error: z.string().nullable(),
    })
    .nullable()
    .describe('for email types and failed'),
  event: z
    .object({ name: z.string(), data: z.record(z.string(), z.unknown()) })
    .nullable()
    .describe('for subscribed, unsubscribed and event'),
});

export const ActivityPageOut = z.object({
  data: z.array(ActivityItemOut),
  cursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last page'),
  hasMore: z.boolean(),
});

export const ActivityStatsQuery = z.object({ days: days(30) });

export const ActivityStatsOut = z.object({
  from: Timestamp,
  to: Timestamp,
  total: z.number().int(),
  counts: z.record(Type, z.number().int()).describe('every type, 0 when nothing happened'),
});

export const RecentCountQuery = z.object({
  minutes: z.coerce.number().int().min(1).max(1440).default(60).describe('1 to 1440, default 60'),
  type: TypeList.optional(),
});

export const RecentCountOut = z.object({ minutes: z.number().int(), since: Timestamp, count: z.number().int() });

export const ActivityTypesOut = z.object({ types: z.array(z.object({ type: Type, description: z.string() })) });

export const UpcomingQuery = z.object({ limit: limit(20, 100) });

export const UpcomingOut = z.object({
  campaigns: z.array(z.object({ id: z.string(), name: z.string(), scheduledFor: Timestamp.nullable() })).describe('SCHEDULED campaigns, soonest first'),
  executions: z
    .array(
      z.object({
        id: z.string(),
        workflowId: z.string(),
        workflowName: z.string(),
        contactId: z.string(),
        contactEmail: z.string().nullable(),
        status: z.enum(['RUNNING', 'WAITING']),
        waitingFor: z.string().nullable().describe('event name a WAIT_FOR_EVENT step waits for'),
        waitingSince: Timestamp.nullable(),
        wakeAt: Timestamp.nullable().describe('when its timer fires (DELAY, or a wait timeout); null when untimed or unknown'),
      }),
    )
    .describe('active workflow executions, soonest to wake first'),
});
