import { z } from 'zod';
import { CLOCK_TIME, isTimeZone } from '../../lib/zonedTime';
import { CAP_PERIODS } from '../../lib/sendingPolicy';
import { TrackingSettingsOut, TrackingSettingsPatch } from './tracking';

const Clock = z.string().regex(CLOCK_TIME, 'must be a 24-hour HH:MM time such as 21:00');

export const TimeZoneName = z.string().refine(isTimeZone, 'must be an IANA time zone name such as Europe/Paris');

export const QuietHours = z.strictObject({ start: Clock, end: Clock });
export const FrequencyCap = z.strictObject({
  max: z.number().int('max must be a whole number').min(1, 'max must be at least 1').max(1000),
  per: z.enum(CAP_PERIODS),
});

/** Deliveries per second, across every worker and path; fractions allowed (0.5 = one every two seconds). */
export const SendRatePerSecond = z.number().positive('sendRatePerSecond must be a positive number').max(100_000, 'sendRatePerSecond must be at most 100000');

export const DoubleOptIn = z.strictObject({
  enabled: z.boolean().describe('ask every new subscription of POST /contacts and /v1/track to confirm, unless a request says doubleOptIn: false'),
  from: z.string().trim().max(320).email().describe('sender of the confirmation email; its domain must be verified'),
  fromName: z
    .string()
    .max(200)
    .regex(/^[^\r\n]*$/, 'fromName must not contain line breaks')
    .nullable()
    .optional(),
  templateId: z
    .string()
    .uuid()
    .nullable()
    .optional()
    .describe('a template of the project for the confirmation email (`{{ confirmUrl }}` is the link); null: the built-in one'),
  expiryHours: z
    .number()
    .int()
    .min(1)
    .max(24 * 90)
    .default(72)
    .describe('how long a confirmation link stays valid'),
});

const RetentionDays = z
  .number()
  .int('days must be a whole number')
  .min(1, 'days must be at least 1')
  .max(3650, 'days must be at most 3650')
  .nullable()
  .optional();

/** How long content is kept (docs/privacy.md "Retention"); only the keys sent change, null keeps forever. */
export const RetentionPatch = z.strictObject({
  emailBodiesDays: RetentionDays.describe("days an email's content (bodies, text part, variables, attachments) is kept; the row and its status stay"),
  eventsDays: RetentionDays.describe('days events are kept (`contact.unsubscribed` stays: campaign stats count it)'),
  inboundDays: RetentionDays.describe('days inbound messages (replies, bounce and complaint reports) are kept'),
});

export const RetentionOut = z.object({
  emailBodiesDays: z.number().int().nullable(),
  eventsDays: z.number().int().nullable(),
  inboundDays: z.number().int().nullable(),
});

/** PATCH /settings: only the keys sent change; null turns a control off. */
export const SettingsPatch = z.strictObject({
  timezone: TimeZoneName.optional(),
  quietHours: QuietHours.nullable().optional(),
  frequencyCap: FrequencyCap.nullable().optional(),
  sendRatePerSecond: SendRatePerSecond.nullable().optional().describe("the project's send throttle; null: the server's SEND_RATE_PER_SECOND"),
  tracking: TrackingSettingsPatch.optional().describe('first-party open and click tracking per email type (docs/tracking.md); only the keys sent change'),
  doubleOptIn: DoubleOptIn.nullable().optional().describe('double opt-in settings; null: off'),
  retention: RetentionPatch.optional().describe('how many days content is kept, pruned by the hourly retention sweep; only the keys sent change'),
});

export const SettingsOut = z.object({
  timezone: z.string(),
  quietHours: z.object({ start: z.string(), end: z.string() }).nullable(),
  frequencyCap: z.object({ max: z.number(), per: z.enum(CAP_PERIODS) }).nullable(),
  sendRatePerSecond: z.number().nullable().describe("deliveries per second this project may make; null: the server's SEND_RATE_PER_SECOND"),
  tracking: TrackingSettingsOut,
  doubleOptIn: z
    .object({ enabled: z.boolean(), from: z.string(), fromName: z.string().nullable(), templateId: z.string().nullable(), expiryHours: z.number().int() })
    .nullable(),
  retention: RetentionOut.describe('days each kind of content is kept; null: kept'),
});
