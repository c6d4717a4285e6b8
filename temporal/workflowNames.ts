import type * as workflows from './workflows';

/**
 * A workflow type as a Schedule or a start by name gives it: the name of a function
 * temporal/workflows exports, checked through a type-only import, so a renamed workflow is a type
 * error where it is named and the caller still loads no workflow body.
 */
export type WorkflowName = Extract<keyof typeof workflows, string>;
