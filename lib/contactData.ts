/**
 * The contact data rules (spec "Contact data"), shared by every writer: POST/PATCH /contacts,
 * /v1/send, /v1/track, workflow UPDATE_CONTACT steps, imports and bulk jobs. Pure: the writers
 * that apply them are db/contactWriters.ts (and its batch twin for imports, db/contactBatchWriter.ts),
 * the only code that writes `contacts.data` or `contacts.subscribed`.
 */

export type ContactData = Record<string, unknown>;

/** The type a custom field is registered with (db/fields.ts), inferred from its first value. */
export const FIELD_TYPES = ['string', 'number', 'boolean', 'date'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface FieldEntry {
  /** Dotted path inside `data` (`plan`, `profile.tier`). */
  key: string;
  type: FieldType;
}

/** Silently dropped from every `data` payload: they name core fields or the links templates get. */
export const RESERVED_DATA_KEYS: ReadonlySet<string> = new Set(['id', 'svc_id', 'svc_email', 'email', 'unsubscribeUrl', 'subscribeUrl', 'manageUrl']);

export const DATA_LIMITS = { maxKeysPerObject: 100, maxKeyLength: 100, maxDepth: 5 } as const;

export const CONTACT_SUBSCRIBED = 'contact.subscribed';
export const CONTACT_UNSUBSCRIBED = 'contact.unsubscribed';

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

/**
 * Spec type inference. Only the two ISO shapes count as dates, and only when they name a real
 * instant (2024-02-30 stays a string), so date filters can always cast a `date` field safely.
 */
export function inferType(value: unknown): FieldType {
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string' && isIsoDate(value)) return 'date';
  return 'string';
}

function isIsoDate(s: string): boolean {
  const dateOnly = DATE_ONLY.test(s);
  if (!dateOnly && !DATE_TIME.test(s)) return false;
  const t = new Date(dateOnly ? `${s}T00:00:00Z` : s);
  return !Number.isNaN(t.getTime()) && t.toISOString().slice(0, 19) === (dateOnly ? `${s}T00:00:00` : s.slice(0, 19));
}

export interface DataProblem {
  path: string[];
  message: string;
}

const MAX_REPORTED_PROBLEMS = 20;

/**
 * Size and shape limits of a `data` payload; empty when it is acceptable. Keys may not contain "."
 * because dotted paths address nested fields (`profile.tier`) in the registry, filters and templates.
 */
export function dataProblems(data: ContactData): DataProblem[] {
  const problems: DataProblem[] = [];
  const { maxKeysPerObject, maxKeyLength, maxDepth } = DATA_LIMITS;
  const walk = (obj: Record<string, unknown>, path: string[], depth: number) => {
    const keys = Object.keys(obj);
    if (depth > maxDepth) return void problems.push({ path, message: `objects may be nested at most ${maxDepth} levels deep` });
    if (keys.length > maxKeysPerObject) problems.push({ path, message: `at most ${maxKeysPerObject} keys per object (got ${keys.length})` });
    for (const key of keys) {
      if (problems.length >= MAX_REPORTED_PROBLEMS) return;
      const at = [...path, key];
      if (key.length === 0 || key.length > maxKeyLength) problems.push({ path: at, message: `keys must be 1 to ${maxKeyLength} characters` });
      else if (key.includes('.')) problems.push({ path: at, message: 'keys may not contain "." (nest an object instead)' });
      if (isPlainObject(obj[key])) walk(obj[key] as Record<string, unknown>, at, depth + 1);
    }
  };
  walk(data, [], 1);
  return problems.slice(0, MAX_REPORTED_PROBLEMS);
}

/** Thrown by the writers (db/contactWriters.ts) when a caller skipped request validation; map it to 422/400. */
export class ContactDataError extends Error {
  constructor(readonly problems: DataProblem[]) {
    super(problems.map((p) => `data${p.path.map((k) => `.${k}`).join('')}: ${p.message}`).join('; '));
  }
}

export function assertValidData(data: ContactData): void {
  const problems = dataProblems(data);
  if (problems.length) throw new ContactDataError(problems);
}

export interface SplitData {
  /** Keys to write (jsonb `||`). */
  set: ContactData;
  /** Keys to delete (jsonb `-`). */
  unset: string[];
  /** `{ value, persistent: false }` values: for this send/track only, never stored. */
  oneOff: ContactData;
}

/** `{ value, persistent }` and nothing else: the spec's wrapper for per-call values. */
function asWrapper(v: unknown): { value: unknown; persistent: boolean } | null {
  if (!isPlainObject(v)) return null;
  const keys = Object.keys(v);
  if (keys.length !== 2 || !('value' in v) || typeof v.persistent !== 'boolean') return null;
  return { value: v.value, persistent: v.persistent };
}

/**
 * Splits a `data` patch by the spec rules, applied to top-level keys: reserved keys dropped, null
 * deletes, "" keeps the existing value, `{ value, persistent: false }` is one-off. A wrapper with
 * `persistent: true` is unwrapped and its value follows the same rules. Any other value, plain
 * objects included, is stored as a whole (a nested object replaces the previous one).
 */
export function splitData(patch: ContactData = {}): SplitData {
  const set: [string, unknown][] = [];
  const unset: string[] = [];
  const oneOff: [string, unknown][] = [];
  for (const [key, raw] of Object.entries(patch)) {
    if (RESERVED_DATA_KEYS.has(key)) continue;
    const wrapper = asWrapper(raw);
    if (wrapper && !wrapper.persistent) {
      oneOff.push([key, wrapper.value]);
      continue;
    }
    const value = wrapper ? wrapper.value : raw;
    if (value === null) unset.push(key);
    else if (value !== '' && value !== undefined) set.push([key, value]);
  }
  // fromEntries (not assignment) so a "__proto__" key stays an ordinary own key.
  return { set: Object.fromEntries(set), unset, oneOff: Object.fromEntries(oneOff) };
}

/**
 * The registry entries a stored patch implies: every non-null, non-empty leaf, nested ones as
 * dotted keys (`profile.tier`). Arrays are leaves (typed `string`, the spec's "anything else").
 */
export function fieldEntries(set: ContactData, prefix = ''): FieldEntry[] {
  const out: FieldEntry[] = [];
  for (const [key, value] of Object.entries(set)) {
    const path = prefix + key;
    if (isPlainObject(value)) out.push(...fieldEntries(value, `${path}.`));
    else if (value !== null && value !== '' && value !== undefined) out.push({ key: path, type: inferType(value) });
  }
  return out;
}

/** Variable name → contact column; shared by identityVariables and its SQL twin. */
export const IDENTITY = [
  ['id', 'id'],
  ['email', 'email'],
  ['svc_id', 'id'],
  ['svc_email', 'email'],
] as const;

/**
 * A contact's identity as templates see it: the reserved names (`id`, `email`, `svc_id`, `svc_email`)
 * are the service's own, which is why they are dropped from stored `data`.
 */
export function identityVariables(contact: { id: string; email: string }): Record<string, unknown> {
  return Object.fromEntries(IDENTITY.map(([name, column]) => [name, contact[column]]));
}
