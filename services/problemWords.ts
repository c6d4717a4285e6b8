import type { z } from 'zod';
import type { StepModule } from '../temporal/steps';
import { configJsonSchema, stepTitle } from './stepTypes';

/**
 * Why a step keeps its workflow from running, in words people act on ("Send email: pick a
 * template"): zod's issues of a config, turned into what to do about the field they name. The
 * field's `picker` (its JSON Schema, services/stepTypes.ts) says what kind of thing to pick.
 */

type Json = Record<string, unknown>;
type Issue = z.core.$ZodIssue;

const PICK: Record<string, string> = {
  template: 'pick a template',
  topic: 'pick a topic',
  segment: 'pick a segment',
  field: 'pick a contact field',
  event: 'pick an event',
};

/** "renewalDate" → "renewal date", "templateId" → "template". */
export const fieldLabel = (key: string) =>
  key
    .replace(/Id$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_-]/g, ' ')
    .toLowerCase();

/** The picker of the field at `path`, in any variant of a union. */
function pickerAt(schema: Json | undefined, path: readonly PropertyKey[]): string | undefined {
  if (!schema) return undefined;
  if (path.length === 0) return typeof schema.picker === 'string' ? schema.picker : undefined;
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const variants = schema[key];
    if (Array.isArray(variants))
      for (const v of variants) {
        const found = pickerAt(v as Json, path);
        if (found) return found;
      }
  }
  const child = (schema.properties as Record<string, Json> | undefined)?.[String(path[0])];
  return child ? pickerAt(child, path.slice(1)) : undefined;
}

/**
 * The issues worth telling: of a union the config fits no variant of, those of the variant it came
 * closest to (fewest issues), so an empty Send email asks for a template, not a subject, body and sender.
 */
export function closestIssues(issues: readonly Issue[]): Issue[] {
  return issues.flatMap((issue) => {
    if (issue.code !== 'invalid_union' || !issue.errors.length) return [issue];
    const best = [...issue.errors].sort((a, b) => a.length - b.length)[0];
    return closestIssues(best.map((i) => ({ ...i, path: [...issue.path, ...i.path] }) as Issue));
  });
}

/** One issue of a step's config in words, prefixed with the step type's title. */
export function issueWords(def: StepModule, issue: Issue): string {
  const key = [...issue.path].reverse().find((k) => typeof k === 'string') as string | undefined;
  const missing = issue.code === 'invalid_type' && (('input' in issue && issue.input === undefined) || /received undefined$/.test(issue.message));
  let words: string;
  if (missing) {
    const picker = pickerAt(configJsonSchema(def), issue.path);
    words = picker && PICK[picker] ? PICK[picker] : `fill in ${key ? fieldLabel(key) : 'the settings'}`;
  } else {
    words = key ? `${fieldLabel(key)}: ${issue.message}` : issue.message;
  }
  return `${stepTitle(def)}: ${words}`;
}
