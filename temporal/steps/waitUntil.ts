import { proxyActivities } from '@temporalio/workflow';
import type { waitUntilStepActivities } from '../../activities/steps/waitUntil';
import { STEP_PICKERS, UNIT_MS, ConfigOf, StepContext, StepOutcome, Zod } from './types';
import { type SummaryLanguage, durationWords, summaryWords } from './words';

const { waitUntilTarget } = proxyActivities<ReturnType<typeof waitUntilStepActivities>>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumInterval: '1 minute', nonRetryableErrorTypes: ['ContactGone'] },
});

const MAX_OFFSET_MS = 3650 * UNIT_MS.days;
const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

/**
 * Waits for a moment of the contact's own: the next `at` (HH:MM) on one of `days` in their time zone
 * (`data.timezone`, else the project's), or the date in one of their data fields plus `offset`. A
 * moment already past continues at once. The wake instant is computed by an activity (time zones
 * are Node's Intl data), then waited for on a durable timer.
 */
export const type = 'WAIT_UNTIL';
/** What people see: the palette's entry and the node's heading (docs/step-types.md). */
export const title = 'Wait until';
export const description = "Waits until a time of day, or a date in the contact's fields.";
export const category = 'Timing';
export const icon = 'calendar';
export const config = (z: Zod) =>
  z.union([
    z.strictObject({
      at: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'at must be a 24-hour HH:MM time such as 09:00'),
      days: z
        .array(z.enum(DAYS))
        .min(1)
        .max(7)
        .refine((d) => new Set(d).size === d.length, 'each day at most once')
        .optional(),
    }),
    z.strictObject({
      field: z
        .string()
        .regex(/^data\.[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/, 'field must be a contact data field such as data.renewalDate')
        // The dashboard offers the project's contact fields (docs/step-types.md, pickers).
        .meta({ picker: STEP_PICKERS.field }),
      offset: z
        .strictObject({ amount: z.number().int('amount must be a whole number'), unit: z.enum(['minutes', 'hours', 'days', 'weeks']) })
        .refine((o) => Math.abs(o.amount * UNIT_MS[o.unit]) <= MAX_OFFSET_MS, { message: 'offset must be within 3650 days', path: ['amount'] })
        .optional(),
    }),
  ]);
export const branches = ['next'] as const;
/** For the step table in docs/workflows.md (`npm run docs:steps`). */
export const docs = {
  config: '`{ at: "HH:MM", days?: ["mon"…"sun"] }` or `{ field: "data.<path>", offset?: { amount, unit } }`',
  notes: "waits until the next `at` of the contact's own clock, or the date in the field plus offset; already past (or no date) continues at once",
};

/** "Wait until 09:00 on mon, fri", "Wait until renewalDate + 2 days". */
export function summary(c: ConfigOf<typeof config>, _names?: unknown, lang?: SummaryLanguage): string {
  const words = summaryWords(lang);
  if ('at' in c) return words.waitUntilTime(c.at, c.days?.map((d) => words.weekdays[d]).join(', '));
  const field = c.field.replace(/^data\./, '');
  if (!c.offset || c.offset.amount === 0) return words.waitUntilField(field);
  return words.waitUntilField(field, `${c.offset.amount < 0 ? '−' : '+'} ${durationWords({ amount: Math.abs(c.offset.amount), unit: c.offset.unit }, lang)}`);
}

export async function run(c: ConfigOf<typeof config>, ctx: StepContext): Promise<StepOutcome> {
  const target = await waitUntilTarget({ projectId: ctx.projectId, contactId: ctx.contactId, config: c });
  if (target.waitMs > 0) await ctx.sleep(ctx.duration(target.waitMs / 60_000, 'minutes'), `until ${target.wakeAt} (${target.timeZone})`);
  return { branch: 'next', output: target };
}
