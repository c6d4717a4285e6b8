import { type SummaryLanguage, quoted, summaryWords } from './words';
import { TRIGGER_STEP_TYPE } from '../../lib/triggerStep';
import { eventNameSchema, StepOutcome, Zod } from './types';

/**
 * Where every execution starts. Created with its workflow, kept equal to the workflow's trigger
 * config, never added or deleted through the API; its `next` transition leads to the first real step.
 */
export const type = TRIGGER_STEP_TYPE;
/** What people see: the palette's entry and the node's heading (docs/step-types.md). */
export const title = 'Trigger';
export const description = 'Starts the workflow for a contact each time their event is tracked.';
export const category = 'Logic';
export const icon = 'bolt';
export const summary = (c: { eventName: string }, _names?: unknown, lang?: SummaryLanguage) => summaryWords(lang).trigger(quoted(c.eventName, lang));
export const internal = true;
export const config = (z: Zod) => z.strictObject({ eventName: eventNameSchema(z) });
export const branches = ['next'] as const;
/** For the step table in docs/workflows.md (`npm run docs:steps`). */
export const docs = {
  config: '`{ eventName }`',
  notes: 'where every execution starts; created with its workflow, not addable',
};
export const references = { eventName: ['eventName'] };

export async function run(): Promise<StepOutcome> {
  return { branch: 'next' };
}
