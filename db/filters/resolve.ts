import { inferType, DATA_LIMITS } from '../../lib/contactData';
import type { FieldType } from '../fields';
import {
  FILTER_LIMITS,
  FILTER_LOGIC,
  FILTER_OPERATORS,
  FILTER_UNITS,
  UNIT_SECONDS,
  FieldTypes,
  FilterLogic,
  FilterOperator,
  FilterPath,
  FilterProblem,
  FilterUnit,
} from './model';

/**
 * Checks a filter tree and resolves every filter to what the SQL emitter needs: the subject (a
 * contacts column, a `data` path with its type, or an event name) and the operand coerced to that
 * type. Input is `unknown` because trees also come back from storage; nothing here trusts shape.
 */

export type Subject =
  | { kind: 'column'; column: 'c.email' | 'c.subscribed' | 'c.created_at' | 'c.updated_at'; type: FieldType }
  | { kind: 'data'; path: string; type: FieldType }
  | { kind: 'event'; name: string }
  /** The contact's state of a topic (db/topics): its choice, else the topic's default; no such topic is "not subscribed". */
  | { kind: 'topic'; slug: string };

export interface Duration {
  amount: number;
  unit: FilterUnit;
}

export type Operand =
  | { kind: 'none' }
  | { kind: 'scalar'; value: string | number | boolean }
  | { kind: 'list'; values: (string | number)[] }
  /** A date value as [start, end): a whole UTC day for `YYYY-MM-DD`, one millisecond for an instant. */
  | { kind: 'range'; start: string; end: string }
  | { kind: 'duration'; duration: Duration }
  | { kind: 'count'; count: number }
  /** atLeastWithin: at least `count` events in the last `duration`. */
  | { kind: 'countWithin'; count: number; duration: Duration };

export interface ResolvedFilter {
  subject: Subject;
  operator: FilterOperator;
  operand: Operand;
}

export interface ResolvedGroup {
  filters: ResolvedFilter[];
  conditions?: ResolvedTree;
}

export interface ResolvedTree {
  logic: FilterLogic;
  groups: ResolvedGroup[];
}

type Kind = FieldType | 'event' | 'topic';

const COMPARISONS = ['greaterThan', 'lessThan', 'greaterThanOrEqual', 'lessThanOrEqual'] as const;
const PRESENCE = ['exists', 'notExists'] as const;

export const OPERATORS_BY_KIND: Record<Kind, readonly FilterOperator[]> = {
  string: ['equals', 'notEquals', 'contains', 'notContains', 'startsWith', 'endsWith', 'in', 'notIn', ...PRESENCE],
  number: ['equals', 'notEquals', ...COMPARISONS, 'in', 'notIn', ...PRESENCE],
  boolean: ['equals', 'notEquals', ...PRESENCE],
  date: ['equals', 'notEquals', ...COMPARISONS, 'within', 'olderThan', ...PRESENCE],
  event: ['triggered', 'notTriggered', 'within', 'olderThan', 'notWithin', 'atLeastWithin', 'equals', 'notEquals', ...COMPARISONS],
  topic: ['equals', 'notEquals'],
};

const STANDARD_FIELDS: Record<string, Extract<Subject, { kind: 'column' }>> = {
  email: { kind: 'column', column: 'c.email', type: 'string' },
  subscribed: { kind: 'column', column: 'c.subscribed', type: 'boolean' },
  createdAt: { kind: 'column', column: 'c.created_at', type: 'date' },
  updatedAt: { kind: 'column', column: 'c.updated_at', type: 'date' },
};

const MAX_REPORTED = 20;

const has = (o: object, k: string) => Object.hasOwn(o, k);
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isOneOf = <T extends string>(list: readonly T[], v: unknown): v is T => typeof v === 'string' && (list as readonly string[]).includes(v);
const NUMERIC = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

class Collector {
  readonly problems: FilterProblem[] = [];
  filters = 0;
  groups = 0;
  add(path: FilterPath, message: string): undefined {
    if (this.problems.length < MAX_REPORTED) this.problems.push({ path, message });
    return undefined;
  }
}

export function resolveTree(input: unknown, fieldTypes: FieldTypes): { tree?: ResolvedTree; problems: FilterProblem[] } {
  const out = new Collector();
  const tree = walkTree(input, [], 1, fieldTypes, out);
  return out.problems.length ? { problems: out.problems } : { tree, problems: [] };
}

function walkTree(node: unknown, path: FilterPath, depth: number, types: FieldTypes, out: Collector): ResolvedTree | undefined {
  if (!isObject(node)) return out.add(path, 'a filter tree must be an object with logic and groups');
  if (depth > FILTER_LIMITS.maxDepth) return out.add(path, `filter trees may be nested at most ${FILTER_LIMITS.maxDepth} levels deep`);
  const logicOk = isOneOf(FILTER_LOGIC, node.logic);
  if (!logicOk) out.add([...path, 'logic'], `logic must be one of ${FILTER_LOGIC.join(', ')}`);
  if (!Array.isArray(node.groups) || node.groups.length === 0) return out.add([...path, 'groups'], 'groups must be a non-empty array');
  const groups = node.groups.map((g, i) => walkGroup(g, [...path, 'groups', i], depth, types, out));
  if (!logicOk || groups.some((g) => !g)) return undefined;
  return { logic: node.logic as FilterLogic, groups: groups as ResolvedGroup[] };
}

function walkGroup(node: unknown, path: FilterPath, depth: number, types: FieldTypes, out: Collector): ResolvedGroup | undefined {
  if (++out.groups > FILTER_LIMITS.maxGroups) return out.add(path, `at most ${FILTER_LIMITS.maxGroups} groups per filter tree`);
  if (!isObject(node)) return out.add(path, 'a group must be an object with filters');
  if (!Array.isArray(node.filters)) return out.add([...path, 'filters'], 'filters must be an array');
  const hasConditions = node.conditions !== undefined && node.conditions !== null;
  // An empty group would silently mean "everyone" (or "no one" under OR): refuse it instead.
  if (node.filters.length === 0 && !hasConditions) return out.add([...path, 'filters'], 'a group needs at least one filter or nested conditions');
  const filters = node.filters.map((f, i) => walkFilter(f, [...path, 'filters', i], types, out));
  const conditions = hasConditions ? walkTree(node.conditions, [...path, 'conditions'], depth + 1, types, out) : undefined;
  if (filters.some((f) => !f) || (hasConditions && !conditions)) return undefined;
  return { filters: filters as ResolvedFilter[], ...(conditions ? { conditions } : {}) };
}

function walkFilter(node: unknown, path: FilterPath, types: FieldTypes, out: Collector): ResolvedFilter | undefined {
  if (++out.filters > FILTER_LIMITS.maxFilters) return out.add(path, `at most ${FILTER_LIMITS.maxFilters} filters per filter tree`);
  if (!isObject(node)) return out.add(path, 'a filter must be an object with field and operator');
  const { operator, unit } = node;
  if (!isOneOf(FILTER_OPERATORS, operator)) return out.add([...path, 'operator'], `unknown operator; use one of ${FILTER_OPERATORS.join(', ')}`);
  if (unit !== undefined && unit !== null && !isOneOf(FILTER_UNITS, unit)) {
    return out.add([...path, 'unit'], `unknown unit; use one of ${FILTER_UNITS.join(', ')}`);
  }
  const subject = parseField(node.field, operator, node.value, types);
  if (typeof subject === 'string') return out.add([...path, 'field'], subject);
  const kind: Kind = subject.kind === 'event' || subject.kind === 'topic' ? subject.kind : subject.type;
  if (!OPERATORS_BY_KIND[kind].includes(operator)) {
    return out.add(
      [...path, 'operator'],
      `${operator} does not apply to ${kind === 'event' || kind === 'topic' ? kind : `a ${kind}`} field; use one of ${OPERATORS_BY_KIND[kind].join(', ')}`,
    );
  }
  const operand = parseOperand(kind, operator, node.value, unit as FilterUnit | undefined);
  if ('problem' in operand) return out.add([...path, ...operand.at], operand.problem);
  return { subject, operator, operand };
}

/** The subject a field names, or why it names none. */
function parseField(field: unknown, operator: FilterOperator, value: unknown, types: FieldTypes): Subject | string {
  const shape = 'unknown field; use email, subscribed, createdAt, updatedAt, data.<key>, event.<name> or topic.<slug>';
  if (typeof field !== 'string' || field.length > FILTER_LIMITS.maxFieldLength) return shape;
  if (has(STANDARD_FIELDS, field)) return STANDARD_FIELDS[field];
  if (field.startsWith('topic.')) {
    const slug = field.slice('topic.'.length);
    if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(slug) || slug.length > 60)
      return 'topic.<slug>: a topic slug is lowercase letters and digits in words joined by "-"';
    return { kind: 'topic', slug };
  }
  if (field.startsWith('event.')) {
    const name = field.slice('event.'.length);
    if (!name || name.length > FILTER_LIMITS.maxEventName) return `event names are 1 to ${FILTER_LIMITS.maxEventName} characters`;
    return { kind: 'event', name };
  }
  if (!field.startsWith('data.')) return shape;
  const path = field.slice('data.'.length);
  // The same limits lib/contactData puts on stored keys: a longer path could never match anything.
  const segments = path.split('.');
  if (segments.length > DATA_LIMITS.maxDepth) return `data paths have at most ${DATA_LIMITS.maxDepth} levels`;
  if (segments.some((s) => s.length === 0 || s.length > DATA_LIMITS.maxKeyLength)) {
    return `each key of a data path must be 1 to ${DATA_LIMITS.maxKeyLength} characters`;
  }
  return { kind: 'data', path, type: has(types, path) ? types[path] : typeFromFilter(operator, value) };
}

/** For a key the registry has not seen yet: the type the filter itself implies. */
function typeFromFilter(operator: FilterOperator, value: unknown): FieldType {
  switch (operator) {
    case 'within':
    case 'olderThan':
      return 'date';
    case 'in':
    case 'notIn':
      return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'number') ? 'number' : 'string';
    case 'greaterThan':
    case 'lessThan':
    case 'greaterThanOrEqual':
    case 'lessThanOrEqual':
      return inferType(value) === 'date' ? 'date' : 'number';
    case 'equals':
    case 'notEquals':
      return inferType(value);
    default:
      return 'string';
  }
}

/** What is wrong with an operand, `at` relative to the filter (`value`, `value.3`, `unit`). */
type OperandProblem = { problem: string; at: FilterPath };
type OperandResult = Operand | OperandProblem;

const bad = (problem: string, ...at: FilterPath): OperandProblem => ({ problem, at: at.length ? at : ['value'] });

/** The operand coerced for the field's kind, or what is wrong with it. */
function parseOperand(kind: Kind, operator: FilterOperator, value: unknown, unit: FilterUnit | undefined): OperandResult {
  if (operator === 'exists' || operator === 'notExists' || operator === 'triggered' || operator === 'notTriggered') return { kind: 'none' };
  if (operator === 'within' || operator === 'olderThan' || operator === 'notWithin') return parseDuration(value, unit);
  if (operator === 'atLeastWithin') return parseCountWithin(value, unit);
  if (kind === 'topic') {
    const state = toBoolean(value);
    return state === null ? bad('expected true (subscribed to the topic) or false') : { kind: 'scalar', value: state };
  }
  if (kind === 'event') {
    const count = toNumber(value);
    if (count === null || !Number.isInteger(count) || count < 0 || count > FILTER_LIMITS.maxEventCount) {
      return bad(`expected an event count: a whole number from 0 to ${FILTER_LIMITS.maxEventCount}`);
    }
    return { kind: 'count', count };
  }
  if (operator === 'in' || operator === 'notIn') {
    if (!Array.isArray(value) || value.length === 0 || value.length > FILTER_LIMITS.maxListValues) {
      return bad(`expected an array of 1 to ${FILTER_LIMITS.maxListValues} values`);
    }
    const values: (string | number)[] = [];
    for (const [i, item] of value.entries()) {
      const v = kind === 'number' ? toNumber(item) : toText(item);
      if (v === null) return bad(expected(kind), 'value', i);
      values.push(v);
    }
    return { kind: 'list', values };
  }
  if (kind === 'date') return toRange(value) ?? bad(expected(kind));
  const scalar = kind === 'number' ? toNumber(value) : kind === 'boolean' ? toBoolean(value) : toText(value);
  return scalar === null ? bad(expected(kind)) : { kind: 'scalar', value: scalar };
}

function expected(kind: FieldType): string {
  switch (kind) {
    case 'number':
      return 'expected a number';
    case 'boolean':
      return 'expected true or false';
    case 'date':
      return 'expected an ISO date: YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS[.sss]Z';
    default:
      return `expected a string of at most ${FILTER_LIMITS.maxStringValue} characters`;
  }
}

function parseDuration(value: unknown, unit: FilterUnit | undefined): OperandResult {
  if (!unit) return bad(`unit is required; use one of ${FILTER_UNITS.join(', ')}`, 'unit');
  const amount = toNumber(value);
  if (amount === null || amount < 0 || amount * UNIT_SECONDS[unit] > FILTER_LIMITS.maxDurationSeconds) {
    return bad(`expected a number of ${unit} from 0 to ${Math.floor(FILTER_LIMITS.maxDurationSeconds / UNIT_SECONDS[unit])}`);
  }
  return { kind: 'duration', duration: { amount, unit } };
}

/** `{ atLeast, within }` with `unit`: a count from 1 (0 would be everyone) and a duration. */
function parseCountWithin(value: unknown, unit: FilterUnit | undefined): OperandResult {
  if (!isObject(value)) return bad('expected { atLeast, within }: at least that many events within the last `within` units');
  const count = toNumber(value.atLeast);
  if (count === null || !Number.isInteger(count) || count < 1 || count > FILTER_LIMITS.maxEventCount) {
    return bad(`expected an event count: a whole number from 1 to ${FILTER_LIMITS.maxEventCount}`, 'value', 'atLeast');
  }
  const window = parseDuration(value.within, unit);
  if ('problem' in window) return window.at[0] === 'unit' ? window : bad(window.problem, 'value', 'within');
  if (window.kind !== 'duration') throw new Error('parseDuration returns a duration');
  return { kind: 'countWithin', count, duration: window.duration };
}

/** Numbers, and numeric strings as form inputs send them. */
function toNumber(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && NUMERIC.test(v.trim()) ? Number(v.trim()) : NaN;
  return Number.isFinite(n) ? n : null;
}

function toBoolean(v: unknown): boolean | null {
  if (typeof v === 'boolean') return v;
  return v === 'true' ? true : v === 'false' ? false : null;
}

function toText(v: unknown): string | null {
  const s = typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null;
  return s !== null && s.length <= FILTER_LIMITS.maxStringValue ? s : null;
}

const DAY_MS = 86_400_000;

function toRange(v: unknown): Operand | null {
  // inferType is the spec's date rule, so a filter value is a date exactly when a stored one would be.
  if (typeof v !== 'string' || inferType(v) !== 'date') return null;
  const dateOnly = v.length === 10;
  const start = new Date(dateOnly ? `${v}T00:00:00Z` : v);
  // Postgres has no year 0, and a range ending past 9999 is open-ended.
  if (start.getUTCFullYear() < 1) return null;
  const end = new Date(start.getTime() + (dateOnly ? DAY_MS : 1));
  return { kind: 'range', start: start.toISOString(), end: end.getUTCFullYear() > 9999 ? 'infinity' : end.toISOString() };
}
