import { z } from 'zod';
import type { FieldError } from './errors';
import { issueMessage, sentenceFor, sentencesIn } from '../lib/zodSentences';
import { labelIn } from '../lib/fieldSentences/labels';
import type { SentenceLanguage } from '../lib/fieldSentences/types';

// Every schema the API parses speaks to people where it gave no words of its own (lib/zodSentences.ts), in
// English unless the parse brings its own map for the request's language (safeParse below).
z.config({ customError: sentenceFor });

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

/** The 422 details of a failed parse, their sentences in `lang` (the request's Accept-Language, api/language.ts). */
export function fieldErrors(error: z.ZodError, lang: SentenceLanguage = 'en'): FieldError[] {
  return error.issues.map((issue) => {
    const params = (issue as { params?: { code?: string } }).params;
    const out: FieldError = {
      field: issue.path.map(String).join('.') || '(root)',
      message: issueMessage(issue.message, issue.path, lang),
      code: params?.code ?? CODE_MAP[issue.code] ?? 'custom',
    };
    if (issue.code === 'invalid_type') out.received = describe(issue.input) === issue.input ? typeof issue.input : describe(issue.input);
    else if ('input' in issue && issue.input !== undefined && typeof issue.input !== 'object') out.received = describe(issue.input);
    return out;
  });
}

/**
 * Parses with zod's sentences in `lang`: English is the global map; French or German the parse's own,
 * which outranks the global one and still yields to a schema's own message (translated later, issueMessage).
 */
export function safeParse<T extends z.ZodType>(schema: T, data: unknown, lang: SentenceLanguage = 'en') {
  return lang === 'en' ? schema.safeParse(data, { reportInput: true }) : schema.safeParse(data, { reportInput: true, error: sentencesIn(lang) });
}

/** One readable line for the flat `{ error }` bodies. */
export function firstMessage(error: z.ZodError, lang: SentenceLanguage = 'en'): string {
  const issue = error.issues[0];
  if (!issue) return 'Invalid request';
  const field = issue.path.map(String).join('.');
  const message = issueMessage(issue.message, issue.path, lang);
  if (lang !== 'en') {
    // A sentence naming its top-level field by its label stands alone; others keep the path that places them.
    const label = issue.path.length === 1 ? labelIn(lang, issue.path) : undefined;
    return !field || (label && message.includes(label)) ? message : `${field}: ${message}`;
  }
  // A top-level field's message already names it ("From address is required", "Email is required") and reads best
  // alone; a deep one keeps its path, which its label ("Src") alone would not locate.
  const last = String(issue.path[0] ?? '').toLowerCase();
  if (!field || (issue.path.length === 1 && message.toLowerCase().replace(/\s+/g, '').startsWith(last))) return message;
  return `${field}: ${message}`;
}
