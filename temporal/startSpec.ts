/**
 * How a workflow is started, kept beside it (temporal/workflows/<name>/start.ts): pure and
 * sandbox-safe, so the id, args, UI text, search attributes and priority of every start of a
 * workflow come from one place; services/temporal.ts `start` runs it.
 *
 * A kit names its workflow by its type (the name the worker registers it under) and types `args`
 * with the workflow's input from temporal/contract.ts; it does not import the workflow. Importing
 * it would tie every starter in services/ to the workflow's activities and, through them, to the
 * services those call: one import cycle through half the server (scripts/importCycles.ts).
 * temporal/workflows/startKits.ts checks at compile time that each kit's name is an exported
 * workflow and its args are what that workflow takes, so a changed signature is still a type
 * error at every start.
 */

/** Keyword search attributes operators filter by in the Web UI (worker/searchAttributes registers them). */
export type SearchAttributeName = 'ProjectId' | 'ContactId' | 'WorkflowDefinitionId' | 'CampaignId' | 'StepType';

export interface StartOnce<Args extends unknown[]> {
  workflowId: string;
  /** The workflow function's parameters (checked against it by temporal/workflows/startKits.ts). */
  args: Args;
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

export interface StartSpec<Type extends string, Args extends unknown[], I> {
  /** The workflow type: the name its function is exported under from temporal/workflows/index.ts. */
  workflowType: Type;
  build(input: I): StartOnce<Args>;
}

/** A workflow's start kit: `build` turns what the caller has (a row, the config) into its start. */
export const startSpec = <Type extends string, Args extends unknown[], I>(
  workflowType: Type,
  build: (input: I) => StartOnce<Args>,
): StartSpec<Type, Args, I> => ({
  workflowType,
  build,
});

/** A start's search attributes as the SDK takes them: each keyword that has a value, as a list of one. */
export function searchAttributeLists(s: Pick<StartOnce<unknown[]>, 'searchAttributes'>): Record<string, string[]> {
  const lists: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(s.searchAttributes ?? {})) if (v) lists[k] = [v];
  return lists;
}

/** The options of a start that a client start (services/temporal.ts) and a child start share. */
export interface ChildStart<Args extends unknown[]> {
  workflowId: string;
  args: Args;
  staticSummary: string;
  staticDetails: string;
  searchAttributes: Record<string, string[]>;
  memo?: Record<string, unknown>;
  priority?: { priorityKey: number };
}

/**
 * The kit's start as a child workflow's options (for `executeChild(spec.workflowType, …)` in a
 * workflow): the same id, args, UI text, search attributes, memo and priority a client start gets.
 * Keys the kit leaves unset are left out, so the command is what a hand-written start was.
 */
export function childStart<Type extends string, Args extends unknown[], I>(spec: StartSpec<Type, Args, I>, input: I): ChildStart<Args> {
  const s = spec.build(input);
  return {
    workflowId: s.workflowId,
    args: s.args,
    staticSummary: s.summary,
    staticDetails: s.details,
    searchAttributes: searchAttributeLists(s),
    ...(s.memo ? { memo: s.memo } : {}),
    ...(s.priorityKey ? { priority: { priorityKey: s.priorityKey } } : {}),
  };
}

/**
 * A child start as the hand-written child starts gave it before they used the kits: no UI text
 * (their `summary`/`details` keys were no start options) and no priority. Runs that started their
 * child before the kit's patch marker must command exactly that again when replayed.
 */
export function beforeKit<Args extends unknown[]>(start: ChildStart<Args>): Omit<ChildStart<Args>, 'staticSummary' | 'staticDetails' | 'priority'> {
  const { staticSummary: _summary, staticDetails: _details, priority: _priority, ...rest } = start;
  return rest;
}
