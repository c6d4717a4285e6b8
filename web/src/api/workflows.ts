import { ApiError, type ResponseOf } from './client';

/** The shapes of the workflow routes, as the server's OpenAPI document says. */
export type Workflow = ResponseOf<'/workflows/{id}', 'get'>;
export type Step = Workflow['steps'][number];
export type StepType = ResponseOf<'/workflows/step-types', 'get'>[number];
export type Execution = ResponseOf<'/workflows/{id}/executions', 'get'>['data'][number];
export type ExecutionDetail = ResponseOf<'/workflows/{id}/executions/{executionId}', 'get'>;
export type StepStats = ResponseOf<'/workflows/{id}/stats', 'get'>['steps'][number];

export const EXECUTION_STATUSES = ['RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED'] as const;
export const STATUS_COLORS: Record<string, string> = {
  RUNNING: 'blue',
  WAITING: 'yellow',
  COMPLETED: 'green',
  EXITED: 'gray',
  FAILED: 'red',
  CANCELLED: 'gray',
  SKIPPED: 'gray',
};
/** The statuses an execution may still leave: while one is shown in them, the screen follows it. */
export const ACTIVE_STATUSES: ReadonlySet<string> = new Set(['RUNNING', 'WAITING']);
/** How often a screen following an execution asks again (the executions list, its counts, a timeline). */
export const LIVE_MS = 2000;

/** A JSON Schema node, as GET /workflows/step-types gives it (2020-12, generated from zod). */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  format?: string;
  /** A searchable list of the project's things of a kind (template, topic, segment, field, event): GET /workflows/step-types. */
  picker?: string;
  description?: string;
  title?: string;
  minItems?: number;
  maxLength?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  pattern?: string;
}

/**
 * The enabling 422 names steps (`steps.<stepId>.<field>`, api/routes/workflows.ts assertRunnable):
 * its messages grouped by step, for the nodes they concern, each with the field relative to the step.
 */
export function stepProblems(error: unknown): Record<string, { field: string; message: string }[]> {
  const out: Record<string, { field: string; message: string }[]> = {};
  if (!(error instanceof ApiError)) return out;
  for (const [path, message] of Object.entries(error.fields)) {
    const m = /^steps\.([^.]+)\.(.+)$/.exec(path);
    if (!m) continue;
    // The server words each for the message line (`step "Send" (SEND_EMAIL): config.templateId: …`); on its node the step is known.
    const bare = message.replace(/^step ".*?" \([A-Z0-9_]+\): /, '');
    (out[m[1]] ??= []).push({ field: m[2], message: bare.startsWith(`${m[2]}: `) ? bare.slice(m[2].length + 2) : bare });
  }
  return out;
}

/** A step save's 422 (`config.<path>`) as messages by config path, for the generated form's inputs. */
export function configErrors(error: unknown, prefix = 'config'): Record<string, string> {
  const out: Record<string, string> = {};
  if (!(error instanceof ApiError)) return out;
  for (const [path, message] of Object.entries(error.fields)) {
    if (path === prefix) out[''] = message;
    else if (path.startsWith(`${prefix}.`)) out[path.slice(prefix.length + 1)] = message;
  }
  return out;
}

/** The variant of a union schema a value fits best: the first whose required fields it has, else the first. */
export function variantIndex(schema: JsonSchema, value: unknown): number {
  const variants = schema.anyOf ?? schema.oneOf ?? [];
  const v = (value ?? {}) as Record<string, unknown>;
  const i = variants.findIndex((s) => (s.required ?? []).length > 0 && (s.required ?? []).every((k) => v[k] !== undefined));
  return Math.max(0, i);
}

/**
 * A short name for a union variant, by the fields it requires that the others do not ("With template id").
 * `words` puts them in a sentence (the dashboard passes its catalogue's; English by default).
 */
export function variantLabel(
  schema: JsonSchema,
  index: number,
  words: { with: (fields: string) => string; form: (n: number) => string; field?: (key: string) => string } = {
    with: (f) => `With ${f}`,
    form: (n) => `Form ${n}`,
  },
): string {
  const variants = schema.anyOf ?? schema.oneOf ?? [];
  const own = variants[index]?.required ?? [];
  const others = new Set(variants.filter((_, i) => i !== index).flatMap((s) => s.required ?? []));
  const distinct = own.filter((k) => !others.has(k));
  const fields = (distinct.length ? distinct : own).map((k) => (words.field ?? labelOf)(k).toLowerCase()).join(', ');
  return fields ? words.with(fields) : words.form(index + 1);
}

/**
 * A config to start a new step from: the schema's defaults and, for what it requires, the smallest
 * value of that shape the person then fills in (an empty string, the first enum member, two rows
 * for an array that needs two).
 */
export function initialValue(schema: JsonSchema): unknown {
  if (schema.default !== undefined) return schema.default;
  if (schema.anyOf || schema.oneOf) return initialValue((schema.anyOf ?? schema.oneOf)![0]);
  if (schema.enum) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of schema.required ?? []) out[key] = initialValue(schema.properties?.[key] ?? {});
      return out;
    }
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => initialValue(schema.items ?? {}));
    case 'number':
    case 'integer':
      return schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : (schema.minimum ?? 0);
    case 'boolean':
      return false;
    case 'string':
      return '';
    default:
      return undefined;
  }
}

/** Human words for a config key (`fromName` → "From name"). */
export function labelOf(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** One of a list's items (`branches` → "Branch", `days` → "Day"), for its rows and its add button. */
export function singular(label: string): string {
  if (/(ch|sh|x|ss)es$/i.test(label)) return label.slice(0, -2);
  return label.replace(/s$/i, '') || 'Item';
}

/** The Temporal Web UI page of an execution (its workflow id is `exec-<executionId>`, temporal/workflowIds.ts). */
export const temporalExecutionUrl = (uiUrl: string, namespace: string, executionId: string) =>
  `${uiUrl.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(`exec-${executionId}`)}`;
