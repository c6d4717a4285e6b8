import { ApplicationFailure } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { ActivityDeps } from '.';
import { ContactDataError, ContactRow, findContact, identityVariables, updateContact } from '../db/contacts';
import { EventRow } from '../db/events';
import { getEmail, insertEmail, EmailType } from '../db/emails';
import { findTemplate } from '../db/templates';
import { isSenderDomainVerified } from '../db/domains';
import { contactMatches, FilterError } from '../db/filters';
import { ACTIVE_STATUSES, GraphCache, snapshotGraph } from '../db/workflows';
import { executionWorkflowId } from '../temporal/workflowIds';
import {
  CreatedExecution,
  NewExecution,
  createExecution,
  markCancelled,
  markWaiting,
  recordProgress,
  toPayload,
  WaitingInput,
} from '../db/executions';
import { startWorkflowOnce } from '../temporal/client';
import { startEventRouting } from '../temporal/events';
import { eventSignal, ExecutionInput, ProgressUpdate } from '../temporal/workflows/workflowExecution';
import type { config as SendEmailConfig } from '../temporal/steps/sendEmail';
import type { ConfigOf, EventPayload } from '../temporal/steps';
import { deterministicUuid } from '../lib/ids';
import { executionsEnded, executionsStarted, executionSteps } from '../lib/metrics';

type Deps = Pick<ActivityDeps, 'config' | 'knex' | 'temporal'>;

/** What Liquid sees in SEND_EMAIL and WEBHOOK: contact data, the execution context (also as `context`), the contact's ids. */
export function executionVariables(contact: ContactRow, context: Record<string, unknown>): Record<string, unknown> {
  return {
    ...contact.data,
    ...context,
    context,
    ...identityVariables(contact),
  };
}

/**
 * Creates an execution (db/executions createExecution: constraints decide every race) and starts
 * its Temporal workflow `exec-<id>` with the graph snapshot. Repeating it for the same id starts
 * nothing new, so the router and the API may retry freely.
 */
export async function startExecution(deps: Deps, input: NewExecution, graphs?: GraphCache): Promise<CreatedExecution> {
  const created = await createExecution(deps.knex, input, graphs);
  if ('skipped' in created) return created;
  if (created.fresh) executionsStarted.inc({ mode: input.mode });
  const { execution, workflow, graph } = created;
  // A retried start of an execution that was cancelled in between must not bring it to life.
  if (!ACTIVE_STATUSES.includes(execution.status as (typeof ACTIVE_STATUSES)[number])) return created;
  const workflowInput: ExecutionInput = {
    executionId: execution.id,
    projectId: execution.project_id,
    workflowId: workflow.id,
    contactId: execution.contact_id,
    graph: graphs ? graphs.snapshot(graph) : snapshotGraph(graph),
    context: execution.context,
    // config.workflows.timeScale (tests run "2 days" in a second) travels in the input, so the workflow stays deterministic.
    timeScale: deps.config.workflows.timeScale,
    // Set by createExecution (or by an engine that already ran): the first mirror write is done.
    startRecorded: execution.current_step_id !== null,
  };
  await startWorkflowOnce(deps.temporal, {
    workflowType: 'workflowExecution',
    workflowId: executionWorkflowId(execution.id),
    args: [workflowInput],
    searchAttributes: { ProjectId: execution.project_id, ContactId: execution.contact_id, WorkflowDefinitionId: workflow.id },
    memo: { workflow: workflow.name, trigger: workflow.trigger_config.eventName },
  });
  return created;
}

/**
 * Cancels executions in Temporal (their workflows record CANCELLED themselves) and marks them
 * CANCELLED in Postgres at once, so the answer and every later read agree even before the workers
 * get to it. A workflow that is already gone is fine.
 */
export async function cancelExecutions(deps: Deps, workflowId: string, ids: string[]): Promise<number> {
  const client = await deps.temporal.client();
  const BATCH = 50;
  for (let i = 0; i < ids.length; i += BATCH) {
    await Promise.all(
      ids.slice(i, i + BATCH).map(async (id) => {
        try {
          await client.workflow.getHandle(executionWorkflowId(id)).cancel();
        } catch (err) {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        }
      }),
    );
  }
  const cancelled = await markCancelled(deps.knex, workflowId, ids);
  executionsEnded.inc({ status: 'CANCELLED' }, cancelled);
  return cancelled;
}

/** Signals one execution; one that has already ended is no longer waiting, which is fine. */
export async function signalExecution(deps: Deps, executionId: string, event: EventPayload): Promise<boolean> {
  const client = await deps.temporal.client();
  try {
    await client.workflow.getHandle(executionWorkflowId(executionId)).signal(eventSignal, event);
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

const fail = (message: string, type = 'StepConfigError') => ApplicationFailure.nonRetryable(message, type);

export type PrepareEmailInput = {
  executionId: string;
  seq: number;
  projectId: string;
  contactId: string;
  config: ConfigOf<typeof SendEmailConfig>;
  context: Record<string, unknown>;
};

export function workflowActivities(deps: ActivityDeps) {
  const { knex } = deps;
  return {
    /** Mirror of the engine's progress (status, current step, context, step history); idempotent. */
    async recordExecutionProgress(update: ProgressUpdate): Promise<{ active: boolean }> {
      const { active, ended, stepStarted } = await recordProgress(knex, update);
      if (ended) executionsEnded.inc({ status: update.end!.status });
      if (stepStarted) executionSteps.inc({ type: update.started!.type });
      return { active };
    },

    async markExecutionWaiting(input: WaitingInput): Promise<EventPayload | null> {
      return markWaiting(knex, input);
    },

    /** Hands an event recorded inside a workflow (e.g. `email.sent`) to routeEvent, like the API does. */
    async routeRecordedEvent(eventId: string): Promise<void> {
      const event = await knex<EventRow>('events').where({ id: eventId }).first('id', 'project_id', 'contact_id', 'name');
      if (event) await startEventRouting(deps.temporal, [event]);
    },

    /**
     * The email row of a SEND_EMAIL step, under an id derived from (execution, step sequence): a
     * retry finds the row it created. MARKETING mail to an unsubscribed contact is skipped.
     */
    async prepareWorkflowEmail(input: PrepareEmailInput): Promise<{ emailId: string; to: string; skipped?: string }> {
      const emailId = deterministicUuid('workflow-email', input.executionId, String(input.seq));
      const existing = await getEmail(knex, emailId);
      if (existing) return { emailId, to: existing.to_email };
      const contact = await findContact(knex, input.projectId, input.contactId);
      if (!contact) throw fail('the contact no longer exists', 'ContactGone');
      const c = input.config;
      let content: { subject: string; body: string; from: string; fromName?: string | null; replyTo?: string | null; type: EmailType; templateId?: string };
      if ('templateId' in c) {
        const template = await findTemplate(knex, input.projectId, c.templateId);
        if (!template) throw fail(`template ${c.templateId} not found in this project`);
        const { subject, body, from, from_name: fromName, reply_to: replyTo, type, id: templateId } = template;
        content = { subject, body, from, fromName, replyTo, type, templateId };
      } else {
        content = c;
      }
      if (content.type === 'MARKETING' && !contact.subscribed) return { emailId, to: contact.email, skipped: 'unsubscribed' };
      if (!(await isSenderDomainVerified(knex, input.projectId, content.from))) {
        throw fail(`the sender domain of ${content.from} is not verified for this project`);
      }
      try {
        await insertEmail(knex, {
          id: emailId,
          projectId: input.projectId,
          contactId: contact.id,
          templateId: content.templateId ?? null,
          type: content.type,
          to: { email: contact.email },
          from: { email: content.from, name: content.fromName },
          replyTo: content.replyTo,
          subject: content.subject,
          body: content.body,
          variables: executionVariables(contact, input.context),
        });
      } catch (err: any) {
        // A concurrent attempt of this same activity got there first.
        if (err?.code !== '23505') throw err;
      }
      return { emailId, to: contact.email };
    },

    async evaluateCondition(input: { projectId: string; contactId: string; condition: unknown }): Promise<boolean> {
      try {
        return await contactMatches(knex, input.projectId, input.contactId, input.condition);
      } catch (err) {
        if (err instanceof FilterError) throw fail(`invalid condition: ${err.message}`, 'InvalidCondition');
        throw err;
      }
    },

    /**
     * UPDATE_CONTACT through db/contacts. The step's history row records that the change was applied
     * (and which events it emitted) in the same transaction, so a retry routes those events instead
     * of applying again and finding nothing changed.
     */
    async applyContactUpdate(input: {
      executionId: string;
      seq: number;
      projectId: string;
      contactId: string;
      data?: Record<string, unknown>;
      subscribed?: boolean;
    }): Promise<{ changed: boolean; events: string[] }> {
      const outcome = await knex.transaction(async (trx) => {
        const record = await trx('workflow_execution_steps').where({ execution_id: input.executionId, seq: input.seq }).forUpdate().first('output');
        if (record?.output?.applied) return record.output as { changed: boolean; eventIds: string[] };
        let written;
        try {
          written = await updateContact(trx, { projectId: input.projectId, contactId: input.contactId, data: input.data, subscribed: input.subscribed, source: 'workflow' });
        } catch (err) {
          if (err instanceof ContactDataError) throw fail(err.message, 'ContactDataError');
          throw err;
        }
        if (!written) throw fail('the contact no longer exists', 'ContactGone');
        const applied = { applied: true, changed: written.changed, eventIds: written.events.map((e) => e.id) };
        if (record) await trx('workflow_execution_steps').where({ execution_id: input.executionId, seq: input.seq }).update({ output: JSON.stringify(applied) });
        return applied;
      });
      const events = outcome.eventIds.length ? await knex<EventRow>('events').whereIn('id', outcome.eventIds) : [];
      await startEventRouting(deps.temporal, events);
      return { changed: outcome.changed, events: events.map((e) => e.name) };
    },
  };
}
