import type { Knex } from 'knex';
import type { Config } from '../lib/config';
import type { TemporalGateway } from './temporal';
import { cancelWorkflow, signalWorkflow, start } from './temporal';
import { snapshotGraph } from './workflowGraphs';
import { ACTIVE_STATUSES, GraphCache } from '../db/workflows';
import { CreatedExecution, NewExecution, createExecution, markCancelled } from '../db/executions';
import { eventSignal, type EventPayload, type ExecutionInput } from '../temporal/contract';
import { executionWorkflowId, workflowExecutionSpec } from '../temporal/workflows/workflowExecution/start';
import { executionsEnded, executionsStarted } from '../lib/metrics';
import { STEP_TYPES, StepRegistry } from '../temporal/steps';

interface Deps {
  config: Config;
  knex: Knex;
  temporal: TemporalGateway;
  /** The step registry the graph snapshot is parsed with (tests inject their own). */
  steps?: StepRegistry;
}

/** How long any wait of a test run lasts at most: "Wait 2 days" passes in seconds. */
export const TEST_RUN_WAIT_MS = 3_000;

/**
 * Creates an execution (db/executions createExecution: constraints decide every race) and starts
 * its Temporal workflow `exec-<id>` with the graph snapshot. Repeating it for the same id starts
 * nothing new, so the router and the API may retry freely.
 */
export async function startExecution(deps: Deps, input: NewExecution, graphs?: GraphCache): Promise<CreatedExecution> {
  const created = await createExecution(deps.knex, input, graphs);
  if ('skipped' in created) return created;
  // A test run counts nowhere.
  if (created.fresh && input.mode !== 'test') executionsStarted.inc({ mode: input.mode });
  const { execution, workflow, graph } = created;
  // A retried start of an execution that was cancelled in between must not bring it to life.
  if (!ACTIVE_STATUSES.includes(execution.status as (typeof ACTIVE_STATUSES)[number])) return created;
  const workflowInput: ExecutionInput = {
    executionId: execution.id,
    projectId: execution.project_id,
    workflowId: workflow.id,
    contactId: execution.contact_id,
    graph: snapshotGraph(graph, deps.steps ?? STEP_TYPES),
    // The context (the trigger event's data, later webhook answers) stays in the row: step activities
    // read it there, and a history must not carry personal data (the rule in temporal/summaries.ts).
    context: {},
    // config.workflows.timeScale (tests run "2 days" in a second) travels in the input, so the workflow stays deterministic.
    timeScale: deps.config.workflows.timeScale,
    // Set by createExecution (or by an engine that already ran): the first mirror write is done.
    startRecorded: execution.current_step_id !== null,
    // The flag only; where its emails go stays in the row (execution.test.to).
    ...(execution.test ? { test: { callWebhooks: execution.test.callWebhooks, waitMs: TEST_RUN_WAIT_MS } } : {}),
  };
  await start(deps.temporal, workflowExecutionSpec, {
    input: workflowInput,
    workflow: { id: workflow.id, name: workflow.name, eventName: workflow.trigger_config.eventName },
    triggerEvent: input.triggerEvent,
  });
  return created;
}

/**
 * Cancels executions in Temporal (their workflows record CANCELLED themselves) and marks them
 * CANCELLED in Postgres at once, so the answer and every later read agree even before the workers
 * get to it. A workflow that is already gone is fine. Returns how many of `ids` are cancelled,
 * whichever of the two wrote it first.
 */
export async function cancelExecutions(deps: Deps, workflowId: string, ids: string[]): Promise<number> {
  const BATCH = 50;
  for (let i = 0; i < ids.length; i += BATCH) {
    await Promise.all(ids.slice(i, i + BATCH).map((id) => cancelWorkflow(deps.temporal, executionWorkflowId(id))));
  }
  const { moved, cancelled } = await markCancelled(deps.knex, workflowId, ids);
  // A workflow that recorded its own end counted it (activities/workflows.ts).
  executionsEnded.inc({ status: 'CANCELLED' }, moved);
  return cancelled;
}

/** Signals one execution; one that has already ended is no longer waiting, which is fine. */
export async function signalExecution(deps: Deps, executionId: string, event: EventPayload): Promise<boolean> {
  // Without its data: the signal is recorded in the history; the engine stores the event by id.
  return signalWorkflow(deps.temporal, executionWorkflowId(executionId), eventSignal, { ...event, data: {} });
}
