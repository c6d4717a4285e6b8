import type { Workflow } from '@temporalio/common';

/**
 * How a workflow is started, kept beside it (temporal/workflows/<name>/start.ts): pure and
 * sandbox-safe, so the id, args, UI text, search attributes and priority of every start of a
 * workflow come from one place; services/temporal.ts `start` runs it.
 */

/** Keyword search attributes operators filter by in the Web UI (worker/searchAttributes registers them). */
export type SearchAttributeName = 'ProjectId' | 'ContactId' | 'WorkflowDefinitionId' | 'CampaignId' | 'StepType';

export interface StartOnce<W extends Workflow> {
  workflowId: string;
  /** The workflow function's own parameters: a changed signature is a type error at every start. */
  args: Parameters<W>;
  /**
   * One line for the Web UI's list: what and for whom, by name and id. Never an email address or
   * other contact data: Temporal history is not where personal data lives.
   */
  summary: string;
  /** Markdown for the execution's page: project, API paths, trigger (temporal/summaries.ts builds both). */
  details: string;
  searchAttributes?: Partial<Record<SearchAttributeName, string | undefined>>;
  memo?: Record<string, unknown>;
  /** Where its tasks queue when the worker is behind (temporal/priorities.ts); its activities inherit it. */
  priorityKey?: number;
}

export interface StartSpec<W extends Workflow, I> {
  /**
   * The workflow's type: its function's name. Kits start by name and import their workflow for its
   * type only, so a process that starts workflows (the API, activities) never loads a workflow body.
   */
  workflowType: string;
  build(input: I): StartOnce<W>;
}

/**
 * A workflow's start kit: `build` turns what the caller has (a row, the config) into its start.
 * `W`, the workflow's type (`typeof fn`, imported type-only), comes from `build`'s return type.
 */
export const startSpec = <W extends Workflow, I>(workflowType: string, build: (input: I) => StartOnce<W>): StartSpec<W, I> => ({ workflowType, build });

/** Search attributes as the start options take them (keyword lists), the unset ones left out. */
export function searchAttributeLists(attributes: StartOnce<Workflow>['searchAttributes']): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(attributes ?? {})) if (v) out[k] = [v];
  return out;
}

/** The options of a start that a client start (services/temporal.ts) and a child start share. */
export interface ChildStart<W extends Workflow> {
  workflowId: string;
  args: Parameters<W>;
  staticSummary: string;
  staticDetails: string;
  searchAttributes: Record<string, string[]>;
  memo?: Record<string, unknown>;
  priority?: { priorityKey: number };
}

/**
 * The kit's start as a child workflow's options (for `executeChild(spec.workflowType, …)` in a
 * workflow), the same id, args, UI text, search attributes, memo and priority a client start gets.
 * Keys the kit leaves unset are left out, so the command is what a hand-written start was.
 */
export function childStart<W extends Workflow, I>(spec: StartSpec<W, I>, input: I): ChildStart<W> {
  const s = spec.build(input);
  return {
    workflowId: s.workflowId,
    args: s.args,
    staticSummary: s.summary,
    staticDetails: s.details,
    searchAttributes: searchAttributeLists(s.searchAttributes),
    ...(s.memo ? { memo: s.memo } : {}),
    ...(s.priorityKey ? { priority: { priorityKey: s.priorityKey } } : {}),
  };
}

/**
 * A child start as the hand-written child starts gave it before they used the kits: no UI text
 * (their `summary`/`details` keys were no start options) and no priority. Runs that started their
 * child before the kit's patch marker must command exactly that again when replayed.
 */
export function beforeKit<W extends Workflow>(start: ChildStart<W>): Omit<ChildStart<W>, 'staticSummary' | 'staticDetails' | 'priority'> {
  const { staticSummary: _summary, staticDetails: _details, priority: _priority, ...rest } = start;
  return rest;
}
