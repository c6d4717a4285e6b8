import type { TemporalGateway } from './temporal';
import { cancelWorkflow } from './temporal';

/**
 * Requests cancellation of every running execution tagged with the project (search attribute
 * ProjectId); a workflow that ended in between is skipped. The project id is a UUID checked by
 * the caller's route, so it cannot break out of the query string.
 */
export async function cancelProjectExecutions(gateway: TemporalGateway, projectId: string): Promise<number> {
  const client = await gateway.client();
  let cancelled = 0;
  for await (const wf of client.workflow.list({ query: `ProjectId = "${projectId}" AND ExecutionStatus = "Running"` })) {
    if (await cancelWorkflow(gateway, wf.workflowId, wf.runId)) cancelled++;
  }
  return cancelled;
}
