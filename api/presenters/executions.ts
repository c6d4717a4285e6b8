import type { z } from 'zod';
import type { ExecutionOut } from '../schemas/workflows';
import type { ExecutionRow, ExecutionStepRow } from '../../db/executions';
import { iso } from '../../lib/time';

/** Response shapes of the executions routes, typed by their `*Out` schemas (api/schemas). */

/** The current step in words, when the caller has the workflow's steps at hand (lists, one execution). */
export type CurrentStepOf = (stepId: string | null) => { name: string; type: string; title: string } | null;

export function presentExecution(e: ExecutionRow & { contact_email?: string | null }, currentStep?: CurrentStepOf): z.input<typeof ExecutionOut> {
  const waiting = e.status === 'WAITING';
  return {
    id: e.id,
    workflowId: e.workflow_id,
    contactId: e.contact_id,
    ...(e.contact_email !== undefined ? { contactEmail: e.contact_email } : {}),
    status: e.status,
    currentStepId: e.current_step_id,
    ...(currentStep ? { currentStep: currentStep(e.current_step_id) } : {}),
    /** Why a WAITING execution waits on a timer (quiet hours, a local time), when its step says. */
    waitingReason: waiting ? (e.waiting_reason ?? null) : null,
    waitingFor: waiting ? (e.waiting_for ?? null) : null,
    wakeAt: waiting ? iso(e.wake_at) : null,
    context: e.context,
    startedAt: iso(e.started_at)!,
    finishedAt: iso(e.finished_at),
    error: e.error,
    workflowVersion: e.workflow_version ?? null,
    test: !!e.test,
  };
}

export const presentExecutionStep = (s: ExecutionStepRow) => ({
  stepId: s.step_id,
  type: s.type,
  status: s.status,
  startedAt: iso(s.started_at)!,
  finishedAt: iso(s.finished_at),
  output: s.output ?? null,
  branch: s.branch ?? null,
  ...(s.error ? { error: s.error } : {}),
});
