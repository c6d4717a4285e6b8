import type { z } from 'zod';
import type { ExecutionOut } from '../schemas/workflows';
import type { ExecutionRow, ExecutionStepRow } from '../../db/executions';
import { iso } from '../../lib/time';

/** Response shapes of the executions routes, typed by their `*Out` schemas (api/schemas). */

export function presentExecution(e: ExecutionRow): z.input<typeof ExecutionOut> {
  return {
    id: e.id,
    workflowId: e.workflow_id,
    contactId: e.contact_id,
    status: e.status,
    currentStepId: e.current_step_id,
    /** Why a WAITING execution waits on a timer (quiet hours, a local time), when its step says. */
    waitingReason: e.status === 'WAITING' ? (e.waiting_reason ?? null) : null,
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
  ...(s.error ? { error: s.error } : {}),
});
