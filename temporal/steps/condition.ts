import { type SummaryLanguage, filterWords, summaryWords } from './words';
import { proxyActivities } from '@temporalio/workflow';
import type { conditionStepActivities } from '../../activities/steps/condition';
import { filterTreeSchema, type ConfigChecks, type ConfigOf, type StepContext, type StepOutcome, type Zod } from './types';

const { evaluateCondition } = proxyActivities<ReturnType<typeof conditionStepActivities>>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumInterval: '1 minute', nonRetryableErrorTypes: ['InvalidCondition'] },
});

/** Does the contact match a filter tree right now? The same SQL as segments (db/filters). */
export const type = 'CONDITION';
/** What people see: the palette's entry and the node's heading (docs/step-types.md). */
export const title = 'If / else';
export const description = 'Sends the contact down the ‘yes’ or the ‘no’ branch, by who they are and what they did.';
export const category = 'Logic';
export const icon = 'split';
export const summary = (c: { condition: unknown }, _names?: unknown, lang?: SummaryLanguage) => summaryWords(lang).condition(filterWords(c.condition, lang));
// The tree's shape and fields are the filter compiler's to judge (see `check`), not a second schema's.
export const config = (z: Zod) => z.strictObject({ condition: filterTreeSchema(z) });
export const branches = ['yes', 'no'] as const;
/** For the step table in docs/workflows.md (`npm run docs:steps`). */
export const docs = {
  config: '`{ condition: <filter tree> }`',
  notes: '`contactMatches` of db/filters, the same SQL as segments, at the moment the step runs',
};

export async function check(c: ConfigOf<typeof config>, checks: ConfigChecks): Promise<void> {
  await checks.filterTree('condition', c.condition);
}

export async function run(c: ConfigOf<typeof config>, ctx: StepContext): Promise<StepOutcome> {
  const matched = await evaluateCondition({ projectId: ctx.projectId, contactId: ctx.contactId, condition: c.condition });
  return { branch: matched ? 'yes' : 'no', output: { matched } };
}
