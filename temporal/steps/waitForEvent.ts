import { type SummaryLanguage, durationWords, quoted, summaryWords } from './words';
import { durationSchema, eventNameSchema, ConfigOf, StepContext, StepOutcome, Zod } from './types';

/**
 * Waits for the contact's next event of a name. `next` when it comes (its payload becomes `event`
 * in the execution context), `timeout` when the optional timeout runs out first.
 */
export const type = 'WAIT_FOR_EVENT';
/** What people see: the palette's entry and the node's heading (docs/step-types.md). */
export const title = 'Wait for event';
export const description = 'Waits until the contact does something, or until a time limit runs out.';
export const category = 'Timing';
export const icon = 'hourglass';
export const config = (z: Zod) => z.strictObject({ eventName: eventNameSchema(z), timeout: durationSchema(z).optional() });
export const branches = ['next', 'timeout'] as const;
/** Its run opens with the wait: the engine folds the step's start into the wait's write. */
export const startsWithWait = true;
/** For the step table in docs/workflows.md (`npm run docs:steps`). */
export const docs = {
  config: '`{ eventName, timeout?: { amount, unit } }`',
  notes: 'see above; without a timeout it waits until cancelled',
};
export const references = { eventName: ['eventName'] };

/** "Wait up to 3 days for “purchase”", "Wait for “purchase”". */
export function summary(c: ConfigOf<typeof config>, _names?: unknown, lang?: SummaryLanguage): string {
  return summaryWords(lang).waitForEvent(quoted(c.eventName, lang), c.timeout ? durationWords(c.timeout, lang) : undefined);
}

export async function run(c: ConfigOf<typeof config>, ctx: StepContext): Promise<StepOutcome> {
  const timeoutMs = c.timeout ? ctx.duration(c.timeout.amount, c.timeout.unit) : undefined;
  const event = await ctx.waitForEvent(c.eventName, timeoutMs);
  if (!event) return { branch: 'timeout', output: { timedOut: true } };
  return { branch: 'next', output: { eventId: event.id }, context: { event } };
}
