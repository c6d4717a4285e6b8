import type { Knex } from 'knex';
import { loadGraph } from '../db/workflows';
import type { StepRegistry } from '../temporal/steps';
import { StepProblem, stepConfigProblems } from './stepChecks';
import { graphProblems } from './workflowGraphs';

/** Why a workflow cannot run: the first problem as the message, every problem as a field error, the steps at fault. */
export interface NotRunnable {
  message: string;
  errors: StepProblem[];
  stepIds: string[];
}

/**
 * Everything that keeps a workflow from running (enabling, or a manual start): the graph rules of
 * services/workflowGraphs (graphProblems) and each step type's own checks against the project, each
 * naming its step. Null when it can run; the API answers the rest as a 422.
 */
export async function notRunnable(
  knex: Knex,
  project: string,
  workflowId: string,
  options: { registry: StepRegistry; senderWaived: boolean; filterShape: (tree: unknown, at: string) => StepProblem[] },
): Promise<NotRunnable | null> {
  const { registry } = options;
  const graph = await loadGraph(knex, workflowId);
  const byId = new Map(graph.steps.map((s) => [s.id, s]));
  const problems: { stepId: string; field: string; message: string }[] = graphProblems(graph, registry);
  for (const step of graph.steps) {
    if (problems.some((p) => p.stepId === step.id && p.field.startsWith('config'))) continue;
    for (const e of await stepConfigProblems(knex, project, step.type, step.config, 'enable', options))
      problems.push({ stepId: step.id, field: e.field, message: e.message });
  }
  if (!problems.length) return null;
  const describe = (p: (typeof problems)[number]) => {
    const step = byId.get(p.stepId)!;
    return `step "${step.name}" (${step.type}): ${p.field.startsWith('config') || p.field.startsWith('branches') ? `${p.field}: ` : ''}${p.message}`;
  };
  return {
    message: `The workflow cannot run: ${describe(problems[0])}`,
    errors: problems.map((p) => ({ field: `steps.${p.stepId}.${p.field}`, code: 'custom', message: describe(p) })),
    stepIds: [...new Set(problems.map((p) => p.stepId))],
  };
}
