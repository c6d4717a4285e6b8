import { type SummaryLanguage, durationWords, summaryWords } from './words';
import { durationSchema, ConfigOf, StepContext, StepOutcome } from './types';

/** A durable timer: survives worker restarts and deploys; the execution shows WAITING meanwhile. */
export const type = 'DELAY';
/** What people see: the palette's entry and the node's heading (docs/step-types.md). */
export const title = 'Wait';
export const description = 'Waits a set time before going on.';
export const category = 'Timing';
export const icon = 'clock';
export const summary = (c: { amount: number; unit: string }, _names?: unknown, lang?: SummaryLanguage) => summaryWords(lang).delay(durationWords(c, lang));
export const config = durationSchema;
export const branches = ['next'] as const;
/** Its run opens with the wait: the engine folds the step's start into the wait's write. */
export const startsWithWait = true;
/** For the step table in docs/workflows.md (`npm run docs:steps`). */
export const docs = {
  config: '`{ amount, unit: minutes|hours|days|weeks }`',
  notes: 'a durable Temporal timer; at most 3650 days',
};

export async function run(c: ConfigOf<typeof config>, ctx: StepContext): Promise<StepOutcome> {
  const ms = ctx.duration(c.amount, c.unit);
  await ctx.sleep(ms);
  return { branch: 'next', output: { delayedMs: ms } };
}
