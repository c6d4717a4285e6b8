import type { FieldType } from './contactData';
import type { CopyKey } from './publicCopy/en';

/**
 * A signup form's fields (docs/forms.md) and how a submission's values become contact data. Pure and
 * free of Node modules: the dashboard's preview renders the same markup (lib/formMarkup.ts).
 */

export const FORM_FIELD_TYPES = ['text', 'number', 'date', 'checkbox', 'select'] as const;
export type FormFieldType = (typeof FORM_FIELD_TYPES)[number];

export interface FormField {
  /** The contact data key the value is stored under (`data.<key>`). */
  key: string;
  label: string;
  type: FormFieldType;
  required: boolean;
  /** A select's choices, in order. */
  options?: string[];
}

/** The type each form field registers its key with (db/fields.ts), as a value of it would infer. */
export const DATA_TYPE_OF: Record<FormFieldType, FieldType> = { text: 'string', select: 'string', number: 'number', checkbox: 'boolean', date: 'date' };

/**
 * Names the form posts besides its fields: the honeypot (hidden from people, filled by bots) and the
 * signed time stamp of the hosted page (lib/formStamp.ts). Field keys may not start with "_", so a
 * field can never take one of them.
 */
export const HONEYPOT_NAME = '_hp_website';
export const STAMP_NAME = '_stamp';
export const EMAIL_NAME = 'email';

const MAX_TEXT = 1000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
// The shape zod's .email() accepts in practice: one "@", no spaces, a dot in the domain.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface Submission {
  email: string;
  /** Typed values by key: number → number, checkbox → boolean, date → YYYY-MM-DD, text and select → string. */
  data: Record<string, string | number | boolean>;
  /** What was posted, as text, to fill the form again when it is shown with errors. */
  values: Record<string, string>;
  /** A message per field name (`email` or a key) that was refused. */
  errors: Record<string, string>;
}

/** A posted value as one string: a repeated name (an array) counts by its last value. */
export const postedText = (v: unknown): string => {
  const one = Array.isArray(v) ? v[v.length - 1] : v;
  return typeof one === 'string' ? one.trim() : '';
};

const realDate = (s: string) => DATE_ONLY.test(s) && new Date(`${s}T00:00:00Z`).toISOString().slice(0, 10) === s;

/** Words a refusal is given in: the public pages' catalogue in the visitor's language (lib/publicCopy). */
export type SayMessage = (key: Extract<CopyKey, `form.error.${string}`>, values?: Record<string, number>) => string;

/** Reads a urlencoded body against the form's fields: typed data, or a message per refused field. */
export function readSubmission(fields: readonly FormField[], body: Record<string, unknown>, say: SayMessage): Submission {
  const email = postedText(body[EMAIL_NAME]).toLowerCase();
  const out: Submission = { email, data: {}, values: { [EMAIL_NAME]: postedText(body[EMAIL_NAME]) }, errors: {} };
  if (!email) out.errors[EMAIL_NAME] = say('form.error.emailMissing');
  else if (email.length > 320 || !EMAIL.test(email)) out.errors[EMAIL_NAME] = say('form.error.emailInvalid');
  for (const f of fields) {
    const raw = postedText(body[f.key]);
    out.values[f.key] = raw;
    if (f.type === 'checkbox') {
      // An unchecked box posts nothing: it is false, and a required one (a consent box) must be checked.
      if (!raw && f.required) out.errors[f.key] = say('form.error.checkbox');
      else out.data[f.key] = !!raw;
      continue;
    }
    if (!raw) {
      if (f.required) out.errors[f.key] = say('form.error.required');
      continue;
    }
    if (raw.length > MAX_TEXT) out.errors[f.key] = say('form.error.tooLong', { max: MAX_TEXT });
    else if (f.type === 'number') {
      const n = Number(raw);
      if (Number.isFinite(n)) out.data[f.key] = n;
      else out.errors[f.key] = say('form.error.number');
    } else if (f.type === 'date') {
      if (realDate(raw)) out.data[f.key] = raw;
      else out.errors[f.key] = say('form.error.date');
    } else if (f.type === 'select') {
      if (f.options?.includes(raw)) out.data[f.key] = raw;
      else out.errors[f.key] = say('form.error.option');
    } else out.data[f.key] = raw;
  }
  return out;
}
