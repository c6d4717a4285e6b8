import type { z } from 'zod';
import type { StepOut, TransitionOut, WorkflowOut } from '../schemas/workflows';
import type { Graph, StepRow, TransitionRow, WorkflowRow } from '../../db/workflows';
import { iso } from '../../lib/time';
import { STEP_TYPES, StepNames, StepRegistry, SummaryLanguage, findStepType } from '../../temporal/steps';
import { stepSummary } from '../../services/stepSummaries';
import { stepTitle } from '../../services/stepTypes';
import { stepBranches, stepRequiredBranches } from '../../services/workflowGraphs';

/** Response shapes of the workflows routes, typed by their `*Out` schemas (api/schemas). */

/**
 * `names`: what the steps' configs refer to, looked up by services/stepSummaries `stepNames`; `lang`:
 * the language of the summaries (the request's, api/language.ts `answerLanguage`).
 */
export function presentStep(s: StepRow, registry: StepRegistry = STEP_TYPES, names: StepNames = {}, lang: SummaryLanguage = 'en'): z.input<typeof StepOut> {
  const def = findStepType(registry, s.type);
  return {
    id: s.id,
    workflowId: s.workflow_id,
    type: s.type,
    name: s.name,
    title: def ? stepTitle(def) : s.type,
    summary: stepSummary(def, s.config, names, lang),
    config: s.config,
    position: s.position,
    branches: def ? [...stepBranches(def, s.config)] : [],
    requiredBranches: def ? [...stepRequiredBranches(def, s.config)] : [],
  };
}

export const presentTransition = (t: TransitionRow): z.input<typeof TransitionOut> => ({
  id: t.id,
  workflowId: t.workflow_id,
  fromStepId: t.from_step_id,
  toStepId: t.to_step_id,
  branch: t.branch,
});

export function presentWorkflow(
  w: WorkflowRow,
  graph: Graph,
  registry: StepRegistry = STEP_TYPES,
  names: StepNames = {},
  lang: SummaryLanguage = 'en',
): z.input<typeof WorkflowOut> {
  return {
    id: w.id,
    projectId: w.project_id,
    name: w.name,
    description: w.description,
    enabled: w.enabled,
    allowReentry: w.allow_reentry,
    triggerType: w.trigger_type,
    triggerConfig: w.trigger_config,
    steps: graph.steps.map((s) => presentStep(s, registry, names, lang)),
    transitions: graph.transitions.map(presentTransition),
    createdAt: iso(w.created_at)!,
    updatedAt: iso(w.updated_at)!,
  };
}
