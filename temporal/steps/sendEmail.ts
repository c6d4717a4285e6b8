import { type SummaryLanguage, quoted, summaryWords } from './words';
import { ApplicationFailure, ChildWorkflowCancellationType, ParentClosePolicy, executeChild, patched, proxyActivities } from '@temporalio/workflow';
import type { sendEmailStepActivities } from '../../activities/steps/sendEmail';
import { beforeKit, childStart } from '../startSpec';
import type { deliverEmail } from '../workflows/deliverEmail';
import { deliverEmailStart } from '../workflows/deliverEmail/start';
import type { ConfigChecks, ConfigOf, StepContext, StepNames, StepOutcome, Zod } from './types';

const { prepareWorkflowEmail, quietHoursHold } = proxyActivities<ReturnType<typeof sendEmailStepActivities>>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumInterval: '1 minute', nonRetryableErrorTypes: ['StepConfigError'] },
});

const EMAIL_TYPES = ['TRANSACTIONAL', 'MARKETING', 'HEADLESS'] as const;
const noLineBreaks = (s: string) => !/[\r\n]/.test(s);

/**
 * Sends one email to the contact through the same path as /v1/send: an email row, then the
 * `deliverEmail` workflow (`email-<emailId>`), which renders, hands over at most once and records
 * `email.sent`. A MARKETING email to an unsubscribed contact, or over the project's frequency cap, is
 * skipped (recorded as SKIPPED with the reason); one in the contact's quiet hours waits for them to end.
 */
export const type = 'SEND_EMAIL';
/** What people see: the palette's entry and the node's heading (docs/step-types.md). */
export const title = 'Send email';
export const description = 'Sends the contact an email, from a template or written here.';
export const category = 'Messages';
export const icon = 'mail';
export const config = (z: Zod) => {
  const address = z.string().trim().max(320).email();
  // Sent as a topic: only contacts subscribed to it (and globally) get it; its unsubscribe links leave that topic only.
  const topic = z.string().min(1).max(100).optional();
  return z.union([
    z.strictObject({ templateId: z.string().uuid(), topic }),
    z.strictObject({
      topic,
      subject: z.string().min(1).max(998).refine(noLineBreaks, 'subject must not contain line breaks'),
      body: z.string().min(1),
      from: address,
      fromName: z.string().max(200).refine(noLineBreaks, 'fromName must not contain line breaks').optional(),
      replyTo: address.optional(),
      // Inline content is automated mail to a list of people: marketing unless said otherwise.
      type: z.enum(EMAIL_TYPES).default('MARKETING'),
    }),
  ]);
};
export const branches = ['next'] as const;
/** For the step table in docs/workflows.md (`npm run docs:steps`). */
export const docs = {
  config: '`{ templateId, topic? }` or `{ subject, body, from, fromName?, replyTo?, type?, topic? }`',
  notes:
    "an email row, then `deliverEmail` (`email-<emailId>`) as a child workflow; MARKETING (the template's type, or the inline `type`, default MARKETING) to an unsubscribed contact is SKIPPED; with a `topic` (id or slug), a contact not subscribed to it (or globally) is SKIPPED and the unsubscribe links leave that topic only; a failed delivery fails the step",
};
export const references = { template: ['templateId'], topic: ['topic'] };

/** "Send “Welcome” (Welcome template)", or the inline subject. */
export function summary(c: ConfigOf<typeof config>, names: StepNames, lang?: SummaryLanguage): string {
  const words = summaryWords(lang);
  const topic = c.topic === undefined ? undefined : quoted(names.topic?.[c.topic] ?? c.topic, lang);
  if ('templateId' in c) {
    const name = names.template?.[c.templateId];
    return words.send(name ? words.template(name) : words.missingTemplate, topic);
  }
  return words.send(quoted(c.subject, lang), topic);
}

export async function check(c: ConfigOf<typeof config>, checks: ConfigChecks): Promise<void> {
  if (c.topic !== undefined) await checks.topic('topic', c.topic);
  if ('templateId' in c) return checks.template('templateId', c.templateId);
  checks.liquid('subject', c.subject);
  checks.liquid('body', c.body);
  await checks.sender('from', c.from);
}

/** Steps that began before this marker send at once; later ones first wait out the contact's quiet hours. */
const QUIET_HOURS_PATCH = 'send-email-quiet-hours';
/**
 * Deliveries started after this marker come whole from deliverEmail's start kit: its transactional
 * priority and Web UI text, like every other delivery. Earlier ones were started without either,
 * and their replay must give the same command.
 */
const DELIVERY_KIT_PATCH = 'send-email-delivery-kit';

export async function run(c: ConfigOf<typeof config>, ctx: StepContext): Promise<StepOutcome> {
  let held: { heldUntil: string; timeZone: string } | undefined;
  if (patched(QUIET_HOURS_PATCH)) {
    const hold = await quietHoursHold({ projectId: ctx.projectId, contactId: ctx.contactId, config: c });
    if (hold) {
      await ctx.sleep(ctx.duration(hold.waitMs / 60_000, 'minutes'), `quiet hours until ${hold.until} (${hold.timeZone})`);
      held = { heldUntil: hold.until, timeZone: hold.timeZone };
    }
  }
  const prepared = await prepareWorkflowEmail({
    executionId: ctx.executionId,
    seq: ctx.seq,
    projectId: ctx.projectId,
    contactId: ctx.contactId,
    config: c,
  });
  if (prepared.skipped) return { branch: 'next', status: 'SKIPPED', output: { reason: prepared.skipped, ...held } };
  const start = childStart(deliverEmailStart, {
    id: prepared.emailId,
    projectId: ctx.projectId,
    contactId: ctx.contactId,
    template: prepared.template,
    source: `SEND_EMAIL step '${ctx.stepName}' of workflow ${ctx.workflowId}`,
    executionId: ctx.executionId,
  });
  const result = await executeChild<typeof deliverEmail>(deliverEmailStart.workflowType, {
    ...(patched(DELIVERY_KIT_PATCH) ? start : beforeKit(start)),
    // Cancelling the execution must not cancel an email already on its way.
    parentClosePolicy: ParentClosePolicy.ABANDON,
    cancellationType: ChildWorkflowCancellationType.ABANDON,
  });
  if (result.status === 'FAILED') throw ApplicationFailure.nonRetryable(`email ${prepared.emailId} failed: ${result.error ?? 'unknown error'}`, 'EmailFailed');
  return { branch: 'next', output: { emailId: prepared.emailId, status: result.status, ...held } };
}
