import { z } from 'zod';
import { filterProblems, FilterError, FILTER_LOGIC, FILTER_OPERATORS, FILTER_UNITS, OPERATORS_BY_KIND } from '../../db/filters';
import type { FilterOperator } from '../../db/filters';
import type { FieldError } from '../errors';

/**
 * The filter tree of segment `condition`, campaign `audienceCondition` and workflow CONDITION steps.
 * The shape is checked here; limits and meaning (field shapes, operator per field kind, value
 * types, depth, counts) by db/filters, the compiler itself, so the API never accepts a tree it
 * would refuse to compile. Types of data keys the registry already knows are only checked when
 * compiling: routes that save a tree should also compile it with `loadFieldTypes` and answer a
 * FilterError with `filterErrorToFieldError`.
 */

const FilterCondition = z
  .object({
    field: z.string().min(1).describe('email, subscribed, createdAt, updatedAt, data.<key>[.<key>…], event.<name> or topic.<slug>'),
    operator: z.enum(FILTER_OPERATORS),
    value: z
      .unknown()
      .optional()
      .describe(
        'per operator: a string, number, boolean, ISO date, array (in/notIn), amount (within/olderThan/notWithin), event count, or { atLeast, within } (atLeastWithin on an event)',
      ),
    unit: z.enum(FILTER_UNITS).optional().describe('for within/olderThan/notWithin/atLeastWithin'),
  })
  .meta({ id: 'FilterCondition' });

const FilterGroup = z
  .object({
    filters: z.array(FilterCondition),
    get conditions() {
      return FilterTreeShape.optional();
    },
  })
  .meta({ id: 'FilterGroup' });

const FilterTreeShape = z
  .object({
    logic: z.enum(FILTER_LOGIC),
    groups: z.array(FilterGroup).min(1),
  })
  .meta({ id: 'FilterTree' });

/** Refined once at the root: nested trees are reported with their full path from there. */
export const FilterTree = FilterTreeShape.superRefine((tree, ctx) => {
  for (const p of filterProblems(tree)) ctx.addIssue({ code: 'custom', path: p.path, message: p.message });
});
export type FilterTree = z.infer<typeof FilterTree>;

/** A FilterError as a field error of the 422 envelope; `prefix` is where the tree sits in the body (`condition`). */
export function filterErrorToFieldError(err: FilterError, prefix = ''): FieldError {
  return { field: err.fieldUnder(prefix), message: err.detail, code: 'custom' };
}

/**
 * The operators the compiler accepts per field kind (db/filters OPERATORS_BY_KIND), in the compiler's
 * order. api/openapi.ts publishes it as the component `FilterOperatorsByKind`, an enum per kind, and
 * `npm run web:types` generates web/src/api/filterOperators.ts from that enum: the filter builder
 * offers what the server accepts without a copy of the table.
 */
export const FilterOperatorsByKind = z
  .object(
    Object.fromEntries(
      Object.entries(OPERATORS_BY_KIND).map(([kind, ops]) => [
        kind,
        z.array(z.enum(ops as [FilterOperator, ...FilterOperator[]])).describe(`the operators a ${kind} field takes`),
      ]),
    ),
  )
  .describe(
    'The filter operators each kind of field accepts (string, number, boolean, date: the field types of GET /contacts/fields; event.<name>; topic.<slug>)',
  );
