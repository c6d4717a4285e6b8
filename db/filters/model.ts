import type { FieldType } from '../fields';

/**
 * The vocabulary of filter trees, shared by the compiler in db/filters.ts and the
 * zod schema in api/schemas/filters.ts so the two can never disagree on a name or a limit.
 */

export const FILTER_LOGIC = ['AND', 'OR'] as const;
export type FilterLogic = (typeof FILTER_LOGIC)[number];

export const FILTER_OPERATORS = [
  'equals',
  'notEquals',
  'contains',
  'notContains',
  'startsWith',
  'endsWith',
  'greaterThan',
  'lessThan',
  'greaterThanOrEqual',
  'lessThanOrEqual',
  'in',
  'notIn',
  'exists',
  'notExists',
  'within',
  'olderThan',
  'triggered',
  'notTriggered',
  /** Events only: no event of that name in the last `value` `unit`s (including never): one anti-join. */
  'notWithin',
  /** Events only: `value` is `{ atLeast, within }`: at least `atLeast` events in the last `within` `unit`s. */
  'atLeastWithin',
] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

export const FILTER_UNITS = ['minutes', 'hours', 'days', 'weeks', 'months'] as const;
export type FilterUnit = (typeof FILTER_UNITS)[number];

/** One unit in seconds (a month as 30.4375 days): only used to bound durations, never to compute them. */
export const UNIT_SECONDS: Record<FilterUnit, number> = {
  minutes: 60,
  hours: 3_600,
  days: 86_400,
  weeks: 604_800,
  months: 2_629_800,
};

export const FILTER_LIMITS = {
  /** Trees nested inside groups' `conditions`, the root counting as 1. */
  maxDepth: 5,
  maxFilters: 50,
  maxGroups: 50,
  maxListValues: 1000,
  maxStringValue: 1000,
  maxFieldLength: 300,
  maxEventName: 255,
  /** `within`/`olderThan` reach back at most this far, so `now() - interval` stays a valid timestamp. */
  maxDurationSeconds: 1000 * 365.25 * 86_400,
  maxEventCount: 1_000_000,
} as const;

export interface FilterInput {
  field: string;
  operator: string;
  value?: unknown;
  unit?: string;
}

export interface FilterGroupInput {
  filters: FilterInput[];
  conditions?: FilterTreeInput;
}

export interface FilterTreeInput {
  logic: FilterLogic;
  groups: FilterGroupInput[];
}

/** Registry types by data key (`plan`, `profile.tier`), as in `contact_fields`. */
export type FieldTypes = Readonly<Record<string, FieldType>>;

export type FilterPath = (string | number)[];

export interface FilterProblem {
  path: FilterPath;
  message: string;
}

/** A tree the compiler refuses; `path` names the bad node (`groups.0.filters.1.operator`). */
export class FilterError extends Error {
  readonly path: string;
  constructor(readonly problems: FilterProblem[]) {
    const first = problems[0];
    const path = first.path.join('.');
    super(path ? `${path}: ${first.message}` : first.message);
    this.name = 'FilterError';
    this.path = path;
  }

  /** The first problem's message without its path. */
  get detail(): string {
    return this.problems[0].message;
  }

  /** The input field the first problem names, under `prefix` (the request field holding the tree). */
  fieldUnder(prefix = ''): string {
    return [prefix, this.path].filter(Boolean).join('.') || '(root)';
  }
}
