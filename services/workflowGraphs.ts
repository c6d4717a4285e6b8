import { z } from 'zod';
import { STEP_TYPES, StepRegistry, StepModule, findStepType } from '../temporal/steps';
import type { GraphSnapshot } from '../temporal/contract';
import { TRIGGER, Graph } from '../db/workflows';

/**
 * The rules of a workflow graph that come from its step types (the registry): config schemas,
 * branches, the snapshot an execution carries. Node-side only; db/ stores graphs and knows no step type.
 */

const schemas = new WeakMap<StepModule, z.ZodType>();

/** A step type's config schema (its `config(zod)`), built once per type. Never called in the workflow sandbox. */
export function stepConfigSchema(def: StepModule): z.ZodType {
  let schema = schemas.get(def);
  if (!schema) schemas.set(def, (schema = def.config(z)));
  return schema;
}

const issuesText = (error: z.ZodError) => error.issues.map((i) => `${i.path.join('.') || 'config'}: ${i.message}`).join('; ');

/** The branches of a step of this type with this (raw) config; a config its schema refuses has only the fixed ones. */
export function stepBranches(def: StepModule, config: unknown): readonly string[] {
  return resolve(def, def.branches, config);
}

export function stepRequiredBranches(def: StepModule, config: unknown): readonly string[] {
  return resolve(def, def.requiredBranches ?? [], config);
}

function resolve(def: StepModule, list: StepModule['branches'], config: unknown): readonly string[] {
  if (typeof list !== 'function') return list;
  const parsed = stepConfigSchema(def).safeParse(config);
  return parsed.success ? list(parsed.data) : [];
}

const snapshots = new WeakMap<Graph, Map<StepRegistry, GraphSnapshot>>();

/**
 * The graph as an execution carries it (ExecutionInput.graph). Configs are parsed here, on the
 * Node side, so the engine gets them with defaults applied; a step whose config no longer
 * validates carries the reason, and fails the execution if it is ever reached. Remembered per graph
 * object, so a routing pass that reads a graph once (db/workflows GraphCache) parses it once.
 */
export function snapshotGraph(graph: Graph, registry: StepRegistry = STEP_TYPES): GraphSnapshot {
  let byRegistry = snapshots.get(graph);
  if (!byRegistry) snapshots.set(graph, (byRegistry = new Map()));
  let snap = byRegistry.get(registry);
  if (!snap) byRegistry.set(registry, (snap = buildSnapshot(graph, registry)));
  return snap;
}

function buildSnapshot(graph: Graph, registry: StepRegistry): GraphSnapshot {
  const trigger = graph.steps.find((s) => s.type === TRIGGER);
  return {
    triggerStepId: trigger?.id ?? '',
    steps: graph.steps.map((s) => {
      const def = findStepType(registry, s.type);
      const parsed = def ? stepConfigSchema(def).safeParse(s.config) : null;
      const base = { id: s.id, type: s.type, name: s.name };
      if (!parsed) return { ...base, config: s.config };
      return parsed.success
        ? { ...base, config: parsed.data }
        : { ...base, config: s.config, invalid: `invalid ${s.type} config: ${issuesText(parsed.error)}` };
    }),
    transitions: graph.transitions.map((t) => ({ fromStepId: t.from_step_id, toStepId: t.to_step_id, branch: t.branch })),
  };
}

export interface GraphProblem {
  stepId: string;
  /** Relative to the step (`config.templateId`, `branches.yes`, …). */
  field: string;
  /** In words, prefixed with the step type's title ("Trigger: connect a first step"); a config issue's own message. */
  message: string;
  /** The config issue behind a `config.*` problem, for services/problemWords to word. */
  issue?: z.core.$ZodIssue;
}

/**
 * What keeps a graph from running, as far as it can be judged without the database: no step after
 * the trigger, a trigger left unconnected, a branch a plugin type requires left unconnected, a
 * transition on a branch its step cannot take, an unknown type, a config its type's schema refuses.
 * Every problem at once. A branch left open is no problem: the execution ends there.
 */
export function graphProblems(graph: Graph, registry: StepRegistry = STEP_TYPES): GraphProblem[] {
  const problems: GraphProblem[] = [];
  const outgoing = new Map<string, Set<string>>();
  for (const t of graph.transitions) {
    if (!outgoing.has(t.from_step_id)) outgoing.set(t.from_step_id, new Set());
    outgoing.get(t.from_step_id)!.add(t.branch);
  }
  const titleOf = (type: string) => findStepType(registry, type)?.title ?? type;
  const trigger = graph.steps.find((s) => s.type === TRIGGER);
  if (trigger && graph.steps.length === 1) problems.push({ stepId: trigger.id, field: 'steps', message: `${titleOf(TRIGGER)}: add a first step` });
  else if (trigger && !outgoing.get(trigger.id)?.has('next'))
    problems.push({ stepId: trigger.id, field: 'branches.next', message: `${titleOf(TRIGGER)}: connect a first step` });
  for (const step of graph.steps) {
    const def = findStepType(registry, step.type);
    if (!def) {
      problems.push({ stepId: step.id, field: 'type', message: `unknown step type ${step.type}` });
      continue;
    }
    const title = titleOf(step.type);
    const parsed = stepConfigSchema(def).safeParse(step.config, { reportInput: true });
    for (const branch of stepRequiredBranches(def, step.config)) {
      if (!outgoing.get(step.id)?.has(branch))
        problems.push({ stepId: step.id, field: `branches.${branch}`, message: `${title}: connect the ‘${branch}’ branch` });
    }
    // Branches derived from a config its schema refuses are unknown: the config problem says why.
    const branches = stepBranches(def, step.config);
    if (parsed.success || typeof def.branches !== 'function') {
      for (const branch of outgoing.get(step.id) ?? []) {
        if (!branches.includes(branch)) problems.push({ stepId: step.id, field: `branches.${branch}`, message: `${title}: has no ‘${branch}’ branch` });
      }
    }
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        problems.push({ stepId: step.id, field: ['config', ...issue.path.map(String)].join('.'), message: issue.message, issue });
    }
  }
  return problems;
}

/** Whether a transition from this step may use `branch`: null when it may, else why not. */
export function transitionBranchProblem(from: string | { type: string; config?: unknown }, branch: string, registry: StepRegistry = STEP_TYPES): string | null {
  const step = typeof from === 'string' ? { type: from } : from;
  const def = findStepType(registry, step.type);
  if (!def) return `unknown step type ${step.type}`;
  const branches = stepBranches(def, step.config ?? {});
  if (branches.length === 0) return `a ${step.type} step ends the execution and has no outgoing transitions`;
  if (!branches.includes(branch)) return `a ${step.type} step has branches ${branches.join(', ')}, not ${branch}`;
  return null;
}
