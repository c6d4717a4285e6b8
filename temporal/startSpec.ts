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
  workflow: W;
  build(input: I): StartOnce<W>;
}

/** A workflow's start kit: `build` turns what the caller has (a row, the config) into its start. */
export const startSpec = <W extends Workflow, I>(workflow: W, build: (input: I) => StartOnce<W>): StartSpec<W, I> => ({ workflow, build });
