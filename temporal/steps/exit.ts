import type { StepOutcome, Zod } from './types';
import { type SummaryLanguage, summaryWords } from './words';

/** Ends the execution as EXITED (a run that reaches a step with no way on ends as COMPLETED instead). */
export const type = 'EXIT';
/** What people see: the palette's entry and the node's heading (docs/step-types.md). */
export const title = 'Exit';
export const description = 'Ends the workflow for the contact here.';
export const category = 'Logic';
export const icon = 'stop';
export const summary = (_config?: unknown, _names?: unknown, lang?: SummaryLanguage) => summaryWords(lang).exit;
export const config = (z: Zod) => z.strictObject({});
export const branches = [] as const;
/** For the step table in docs/workflows.md (`npm run docs:steps`). */
export const docs = {
  config: '`{}`',
  notes: 'ends the execution as EXITED',
};

export async function run(): Promise<StepOutcome> {
  return { end: 'EXITED' };
}
