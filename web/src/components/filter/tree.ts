import { ApiError } from '../../api/client';
import type { components } from '../../api/schema';

/**
 * A filter tree as the API takes it (docs/api.md "Segments"; the compiler is db/filters.ts). A tree's
 * `logic` joins its groups AND the filters inside each group; a group's nested `conditions` tree (its
 * own logic) is ANDed to its filters.
 */

/** The enums of the API's FilterTree and FilterCondition schemas. */
export type FilterLogic = components['schemas']['FilterTree']['logic'];
export type FilterUnit = NonNullable<components['schemas']['FilterCondition']['unit']>;
export type FilterOperator = components['schemas']['FilterCondition']['operator'];

export interface FilterCondition {
  field: string;
  operator: FilterOperator;
  value?: unknown;
  unit?: FilterUnit;
}
export interface FilterGroup {
  filters: FilterCondition[];
  conditions?: FilterTree;
}
export interface FilterTree {
  logic: FilterLogic;
  groups: FilterGroup[];
}

export const newFilter = (): FilterCondition => ({ field: 'email', operator: 'contains', value: '' });
export const newTree = (logic: FilterLogic = 'AND'): FilterTree => ({ logic, groups: [{ filters: [newFilter()] }] });

/** Field errors of an API answer as node paths relative to the tree (`condition.groups.0…` → `groups.0…`; the tree itself is `''`). */
export function conditionErrors(error: unknown, prefix = 'condition'): Record<string, string> {
  const out: Record<string, string> = {};
  if (!(error instanceof ApiError)) return out;
  const strip = (f: string) => (f === prefix || f === '(root)' ? '' : f.startsWith(`${prefix}.`) ? f.slice(prefix.length + 1) : null);
  for (const [f, message] of Object.entries(error.fields)) {
    const at = strip(f);
    if (at !== null && !(at in out)) out[at] = message;
  }
  // Routes answering the flat `{ error }` body (segments) name the node at the start of the sentence.
  const flat = new RegExp(`^(${prefix}(?:\\.[^\\s:]+)?): (.+)$`, 's').exec(error.message);
  if (flat && !Object.keys(out).length) out[strip(flat[1]) ?? ''] = flat[2];
  return out;
}
