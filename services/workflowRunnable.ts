import type { Knex } from 'knex';
import { loadGraph } from '../db/workflows';
import { type StepRegistry, findStepType } from '../temporal/steps';
import { closestIssues, issueWords } from './problemWords';
import { stepTitle } from './stepTypes';
import { StepProblem, stepConfigProblems } from './stepChecks';
import { graphProblems } from './workflowGraphs';

/** Why a workflow cannot run: every problem in the message and as a field error, the steps at fault. */
export interface NotRunnable {
  message: string;
  /** One per problem, in words; `stepId` names the node it shows on. */
  errors: (StepProblem & { stepId: string })[];
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
  const problems: { stepId: string; field: string; message: string }[] = [];
  for (const p of graphProblems(graph, registry)) {
    const def = findStepType(registry, graph.steps.find((s) => s.id === p.stepId)?.type ?? '');
    if (!p.issue || !def) problems.push(p);
    // A union the config fits no variant of is worded by the variant it came closest to.
    else
      for (const issue of closestIssues([p.issue]))
        problems.push({ stepId: p.stepId, field: ['config', ...issue.path.map(String)].join('.'), message: issueWords(def, issue) });
  }
  for (const step of graph.steps) {
    if (problems.some((p) => p.stepId === step.id && p.field.startsWith('config'))) continue;
    const def = findStepType(registry, step.type);
    for (const e of await stepConfigProblems(knex, project, step.type, step.config, 'enable', options))
      problems.push({ stepId: step.id, field: e.field, message: def ? `${stepTitle(def)}: ${e.message}` : e.message });
  }
  if (!problems.length) return null;
  return {
    message: `The workflow cannot run: ${problems.map((p) => p.message).join('; ')}`,
    errors: problems.map((p) => ({ field: `steps.${p.stepId}.${p.field}`, code: 'custom', message: p.message, stepId: p.stepId })),
    stepIds: [...new Set(problems.map((p) => p.stepId))],
  };
}
