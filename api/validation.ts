import { z } from 'zod';
import type { FieldError } from './errors';

// Our field-error codes are the spec's (zod 3 names); zod 4 renamed two of them.
const CODE_MAP: Record<string, string> = {
  invalid_type: 'invalid_type',
  invalid_format: 'invalid_string',
  too_small: 'too_small',
  too_big: 'too_big',
  invalid_value: 'invalid_enum_value',
  custom: 'custom',
};

function describe(input: unknown): unknown {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'array';
  if (typeof input === 'string') return input.length > 100 ? `${input.slice(0, 100)}…` : input;
  if (typeof input === 'object') return 'object';
  return input;
}

export function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => {
    const params = (issue as { params?: { code?: string } }).params;
    const out: FieldError = {
      field: issue.path.map(String).join('.') || '(root)',
      message: issue.message,
      code: params?.code ?? CODE_MAP[issue.code] ?? 'custom',
    };
    if (issue.code === 'invalid_type') out.received = describe(issue.input) === issue.input ? typeof issue.input : describe(issue.input);
    else if ('input' in issue && issue.input !== undefined && typeof issue.input !== 'object') out.received = describe(issue.input);
    return out;
  });
}

export function safeParse<T extends z.ZodType>(schema: T, data: unknown) {
  return schema.safeParse(data, { reportInput: true });
}

/** One readable line for the flat `{ error }` bodies. */
export function firstMessage(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'Invalid request';
  const field = issue.path.map(String).join('.');
  // A message that already names its field ("From address is required") reads best alone.
  const last = String(issue.path[issue.path.length - 1] ?? '');
  if (!field || issue.message.toLowerCase().startsWith(last.toLowerCase())) return issue.message;
  return `${field}: ${issue.message}`;
}
