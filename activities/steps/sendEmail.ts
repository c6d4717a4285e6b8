import { senderCheckWaived } from '../../lib/config';
import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityDeps } from '../deps';
import { findContact } from '../../db/contactReaders';
import { contactTopicStates, findTopicByKey } from '../../db/topics';
import { consentRefusal } from '../../db/consent';
import { getEmail, insertEmail, EmailType } from '../../db/emails';
import { findTemplate, publishedContent } from '../../db/templates';
import { sendableContent } from '../../lib/templateContent';
import { executionVariables } from '../../services/executionVariables';
import { senderAllowed } from '../../services/senderCheck';
import { executionContext, executionTestRun, stepAt } from '../../db/executions';
import type { config as SendEmailConfig } from '../../temporal/steps/sendEmail';
import type { ConfigOf } from '../../temporal/steps/types';
import { deterministicUuid } from '../../lib/ids';
import { claimMarketingSends, sendingPolicy } from '../../db/sendingPolicy';
import { contactTimeZone, DEFAULT_POLICY, heldUntil } from '../../lib/sendingPolicy';

/** The activities of the SEND_EMAIL step (temporal/steps/sendEmail.ts). */

const fail = (message: string, type = 'StepConfigError') => ApplicationFailure.nonRetryable(message, type);

export type PrepareEmailInput = {
  executionId: string;
  seq: number;
  projectId: string;
  contactId: string;
  config: ConfigOf<typeof SendEmailConfig>;
  /** Only in inputs scheduled before the context stayed in Postgres; the row is read instead. */
  context?: Record<string, unknown>;
};

export function sendEmailStepActivities(deps: ActivityDeps) {
  const { knex } = deps;
  return {
    /**
     * When the step's email is MARKETING and the contact is in the project's quiet hours (in their own
     * time zone), the instant they end and the real milliseconds until then; else null.
     */
    async quietHoursHold(input: {
      projectId: string;
      contactId: string;
      config: PrepareEmailInput['config'];
    }): Promise<{ until: string; waitMs: number; timeZone: string } | null> {
      const policy = await sendingPolicy(knex, input.projectId);
      if (!policy?.quietHours) return null;
      const c = input.config;
      const type = 'templateId' in c ? (await findTemplate(knex, input.projectId, c.templateId))?.type : c.type;
      if (type !== 'MARKETING') return null;
      const contact = await findContact(knex, input.projectId, input.contactId);
      if (!contact) return null;
      const timeZone = contactTimeZone(contact.data, policy.timezone ?? DEFAULT_POLICY.timezone);
      const now = Date.now();
      const until = heldUntil(policy, type, timeZone, now);
      return until === null ? null : { until: new Date(until).toISOString(), waitMs: until - now, timeZone };
    },

    /**
     * The email row of a SEND_EMAIL step, under an id derived from (execution, step sequence): a
     * retry finds the row it created. MARKETING mail to an unsubscribed contact is skipped. The
     * result lands in Temporal history, so it names the email by id (and its template), never the address.
     */
    async prepareWorkflowEmail(input: PrepareEmailInput): Promise<{ emailId: string; template?: string; skipped?: string }> {
      const emailId = deterministicUuid('workflow-email', input.executionId, String(input.seq));
      const existing = await getEmail(knex, emailId);
      if (existing) return { emailId };
      const contact = await findContact(knex, input.projectId, input.contactId);
      if (!contact) throw fail('the contact no longer exists', 'ContactGone');
      const c = input.config;
      let content: {
        subject: string;
        body: string;
        text?: string | null;
        from: string;
        fromName?: string | null;
        replyTo?: string | null;
        type: EmailType;
        templateId?: string;
        template?: string;
      };
      if ('templateId' in c) {
        const template = await findTemplate(knex, input.projectId, c.templateId);
        if (!template) throw fail(`template ${c.templateId} not found in this project`);
        const { from, from_name: fromName, reply_to: replyTo, type, id: templateId, name } = template;
        // The published version, in the contact's language (lib/templateContent sendableContent).
        const { subject, body, text } = sendableContent(publishedContent(template), contact.data?.locale);
        content = { subject, body, text, from, fromName, replyTo, type, templateId, template: name };
      } else {
        content = c;
      }
      // The consent rule (db/consent.ts): its global part first, so an unsubscribed contact is skipped before the topic is looked up.
      const refused = consentRefusal({ type: content.type, topicId: null }, contact);
      if (refused) return { emailId, skipped: refused };
      const topic = c.topic === undefined ? null : await findTopicByKey(knex, input.projectId, c.topic);
      if (c.topic !== undefined && !topic) throw fail(`topic ${c.topic} not found in this project`);
      if (topic) {
        const state = contact.subscribed ? (await contactTopicStates(knex, input.projectId, contact.id)).find((s) => s.topic.id === topic.id) : undefined;
        const refusedTopic = consentRefusal({ type: content.type, topicId: topic.id }, { subscribed: contact.subscribed, topicSubscribed: state?.subscribed });
        if (refusedTopic) return { emailId, skipped: refusedTopic };
      }
      if (!(await senderAllowed(knex, input.projectId, content.from, senderCheckWaived(deps.config)))) {
        throw fail(`the sender domain of ${content.from} is not verified for this project`);
      }
      // A test run (POST /workflows/:id/test) mails the tester, never the contact: rendered with the
      // contact's fields, but sent without the contact (no email.sent of theirs, no cap used, no stats).
      const test = await executionTestRun(knex, input.executionId);
      // Claimed last: a send that fails a check above must not use up the contact's cap.
      const cap = content.type === 'MARKETING' && !test ? (await sendingPolicy(knex, input.projectId))?.frequencyCap : null;
      if (cap && !(await claimMarketingSends(knex, { projectId: input.projectId, cap, sends: [{ emailId, contactId: contact.id }] })).has(emailId)) {
        return { emailId, skipped: 'frequency_cap' };
      }
      try {
        await insertEmail(knex, {
          id: emailId,
          projectId: input.projectId,
          contactId: test ? null : contact.id,
          templateId: content.templateId ?? null,
          type: content.type,
          to: { email: test ? test.to : contact.email },
          from: { email: content.from, name: content.fromName },
          replyTo: content.replyTo,
          subject: test ? `[Test] ${content.subject}` : content.subject,
          body: content.body,
          text: content.text ?? null,
          variables: executionVariables(contact, await executionContext(knex, input.executionId)),
          workflowExecutionId: input.executionId,
          // The step of the execution's history at this seq: its node counts the email.
          // A test run's email counts in no step's numbers.
          workflowStepId: test ? null : ((await stepAt(knex, input.executionId, input.seq)) ?? null),
          topicId: topic?.id ?? null,
        });
      } catch (err: any) {
        // A concurrent attempt of this same activity got there first.
        if (err?.code !== '23505') throw err;
      }
      return { emailId, template: content.template };
    },
  };
}
