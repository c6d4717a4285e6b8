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
