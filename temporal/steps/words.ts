import type { DurationUnit } from './types';

/**
 * Words for step summaries (a node's line on the canvas). Pure functions of a config, run on the
 * Node side only (the API computes summaries); step files import them for their `summary`.
 */

/** "1 day", "2 days", "90 minutes". */
export function durationWords(d: { amount: number; unit: DurationUnit | string }): string {
  const unit = d.amount === 1 ? d.unit.replace(/s$/, '') : d.unit;
  return `${d.amount} ${unit}`;
}

/** “name”, with typographic quotes. */
export const quoted = (text: string) => `“${text}”`;

const OPERATOR_WORDS: Record<string, string> = {
  equals: 'is',
  notEquals: 'is not',
  contains: 'contains',
  notContains: 'does not contain',
  startsWith: 'starts with',
  endsWith: 'ends with',
  greaterThan: 'is more than',
  lessThan: 'is less than',
  greaterThanOrEqual: 'is at least',
  lessThanOrEqual: 'is at most',
  in: 'is one of',
  notIn: 'is none of',
  exists: 'is set',
  notExists: 'is not set',
  within: 'within',
  olderThan: 'older than',
  triggered: 'happened',
  notTriggered: 'did not happen',
};

type Tree = { logic?: string; groups?: { filters?: { field?: string; operator?: string; value?: unknown; unit?: string }[]; conditions?: Tree }[] };

/** "plan is pro", "plan is pro and country is de": a filter tree (db/filters/model.ts) in words. */
export function filterWords(tree: unknown): string {
  const t = (tree ?? {}) as Tree;
  const joiner = t.logic === 'OR' ? ' or ' : ' and ';
  const groups = (t.groups ?? []).map((g) => {
    const parts = (g.filters ?? []).map((f) => {
      const field = String(f.field ?? '').replace(/^data\./, '');
      const op = OPERATOR_WORDS[String(f.operator)] ?? String(f.operator ?? '');
      const value = Array.isArray(f.value) ? f.value.join(', ') : f.value === undefined ? '' : String(f.value);
      return [field, op, value, f.unit ?? ''].filter(Boolean).join(' ');
    });
    if (g.conditions) parts.push(`(${filterWords(g.conditions)})`);
    return parts.join(' and ');
  });
  return groups.filter(Boolean).join(joiner) || 'a condition holds';
}
