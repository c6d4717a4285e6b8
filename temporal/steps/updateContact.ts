import { proxyActivities } from '@temporalio/workflow';
import type { updateContactStepActivities } from '../../activities/steps/updateContact';
import type { ConfigChecks, ConfigOf, StepContext, StepOutcome, Zod } from './types';
import { type SummaryLanguage, summaryWords } from './words';

const { applyContactUpdate } = proxyActivities<ReturnType<typeof updateContactStepActivities>>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumInterval: '1 minute', nonRetryableErrorTypes: ['ContactDataError'] },
});

/** Writes the contact through db/contactWriters (the data rules); a subscription change emits its event. */
export const type = 'UPDATE_CONTACT';
/** What people see: the palette's entry and the node's heading (docs/step-types.md). */
export const title = 'Update contact';
export const description = "Changes the contact's fields or their subscription.";
export const category = 'Data';
export const icon = 'user-edit';
export const config = (z: Zod) =>
  z
    .strictObject({ data: z.record(z.string(), z.unknown()).optional(), subscribed: z.boolean().optional() })
    .refine((c) => c.data !== undefined || c.subscribed !== undefined, { message: 'give data or subscribed' });
export const branches = ['next'] as const;
/** For the step table in docs/workflows.md (`npm run docs:steps`). */
export const docs = {
  config: '`{ data?, subscribed? }`',
  notes: 'db/contactWriters `updateContact` (the data rules); a subscription change emits and routes its event',
};
export const references = { contactFields: ['data'] };

/** "Set plan, tier; unsubscribe". */
export function summary(c: ConfigOf<typeof config>, _names?: unknown, lang?: SummaryLanguage): string {
  const words = summaryWords(lang);
  const parts: string[] = [];
  if (c.data && Object.keys(c.data).length) parts.push(words.setFields(Object.keys(c.data).join(', ')));
  if (c.subscribed !== undefined) parts.push(c.subscribed ? words.subscribe : words.unsubscribe);
  const text = parts.join(words.separator);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export async function check(c: ConfigOf<typeof config>, checks: ConfigChecks): Promise<void> {
  if (c.data) checks.contactData('data', c.data);
}

export async function run(c: ConfigOf<typeof config>, ctx: StepContext): Promise<StepOutcome> {
  const result = await applyContactUpdate({
    executionId: ctx.executionId,
    seq: ctx.seq,
    projectId: ctx.projectId,
    contactId: ctx.contactId,
    data: c.data,
    subscribed: c.subscribed,
  });
  return { branch: 'next', output: result };
}
