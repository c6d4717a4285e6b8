import type { ExecutionInput } from '../../contract';
import { type StartOnce, startSpec } from '../../startSpec';
import { executionStart } from '../../summaries';
import { executionWorkflowId } from '../../workflowIds';

/** The id a caller signals, updates or waits on; the start below uses the same one. */
export { executionWorkflowId };

export interface ExecutionStart {
  /** The workflow's input, graph snapshot included (services/executions.ts builds it). */
  input: ExecutionInput;
  workflow: { id: string; name: string; eventName: string };
  triggerEvent?: { id: string; name: string };
}

/** An execution's run under `exec-<id>`: the router and the API may retry freely. */
export const workflowExecutionSpec = startSpec(
  'workflowExecution',
  ({ input, workflow, triggerEvent }: ExecutionStart): StartOnce<[ExecutionInput]> => ({
    workflowId: executionWorkflowId(input.executionId),
    args: [input],
    ...executionStart({ executionId: input.executionId, projectId: input.projectId, contactId: input.contactId, workflow, triggerEvent, test: !!input.test }),
    // StepType starts at the trigger; the workflow upserts it as the execution moves.
    searchAttributes: { ProjectId: input.projectId, ContactId: input.contactId, WorkflowDefinitionId: workflow.id, StepType: 'TRIGGER' },
    memo: { workflow: workflow.name, trigger: workflow.eventName, ...(input.test ? { test: true } : {}) },
  }),
);
