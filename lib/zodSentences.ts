import { z } from 'zod';
import { en, fieldLabel, labelOf } from './fieldSentences/en';
import { fr } from './fieldSentences/fr';
import { de } from './fieldSentences/de';
import { OWN_MESSAGES } from './fieldSentences/ownMessages';
import type { Field, FieldWords, FormatName, SentenceLanguage, TypeName, Unit } from './fieldSentences/types';

/**
 * Sentences for people in place of zod's developer English ("Too small: expected string to have >=1
 * characters"), in English, French or German (lib/fieldSentences/). English is installed as zod's global
 * `customError` (api/validation.ts); another language is the parse's own error map (`sentencesIn`), which
 * ranks below a schema's own message and above the global one. Either way it only speaks where a schema
 * gave no message of its own; the 422 envelope keeps its shape and codes, only the words change.
 */

export { fieldLabel, labelOf };

export const FIELD_WORDS: Record<SentenceLanguage, FieldWords> = { en, fr, de };

/** A literal or enum value as a person reads it. */
const shown = (v: unknown) => (typeof v === 'string' ? `"${v}"` : String(v));

/** "a, b or c" (at most eight, then "…"). */
function oneOf(values: readonly unknown[], or: string): string {
  const list = values.slice(0, 8).map(shown);
  if (values.length > 8) return `${list.join(', ')}, …`;
  return list.length > 1 ? `${list.slice(0, -1).join(', ')} ${or} ${list[list.length - 1]}` : (list[0] ?? '');
}

function dateOf(v: unknown): string {
  return typeof v === 'number' || typeof v === 'bigint' ? new Date(Number(v)).toISOString() : String(v);
}

const PLURALS = new Map<string, Intl.PluralRules>();

/** "10 characters", "1 caractère": the language's own plural rule picks the unit's form. */
function amount(lang: string, words: FieldWords, n: number | bigint, unit: Unit): string {
  let rules = PLURALS.get(lang);
  if (!rules) PLURALS.set(lang, (rules = new Intl.PluralRules(lang)));
  const form = rules.select(Number(n)) === 'one' ? 'one' : 'other';
  return `${n} ${words.units[unit][form]}`;
}

type Issue = z.core.$ZodRawIssue & { schema?: unknown };

/** The sentence for one issue in `lang`, or undefined to leave it to the schema's own words. */
export function composeSentence(issue: Issue, lang: SentenceLanguage): string | undefined {
  const w = FIELD_WORDS[lang];
  const own = (issue.schema ?? issue.inst) as z.core.$ZodType | undefined;
  const field: Field = {
    path: issue.path ?? [],
    own: (own && (z.globalRegistry.get(own as z.ZodType)?.label as string | undefined)) || undefined,
  };
  const s = w.subject(field);
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) return w.required(s);
      const expected = String(issue.expected);
      if (expected === 'number' && typeof issue.input === 'number') return w.finite(s);
      return w.mustBe(s, w.types[expected as TypeName] ?? expected);
    }
    case 'too_small': {
      const { minimum, inclusive, exact, origin } = issue;
      if (Object.hasOwn(w.units, origin)) {
        const unit = origin as Unit;
        if (origin === 'string' && Number(minimum) === 1 && inclusive !== false && !exact) return w.required(s);
        if (origin !== 'string' && origin !== 'file' && Number(minimum) === 1 && !exact) return w.needsOne(s, unit, w.units[unit].one);
        if (exact) return w.exactlyAmount(s, amount(lang, w, minimum, unit), unit);
        return w.atLeastAmount(s, amount(lang, w, inclusive === false ? Number(minimum) + 1 : minimum, unit), unit);
      }
      if (origin === 'date') return w.onOrAfter(s, dateOf(minimum));
      if (exact) return w.exactly(s, String(minimum));
      return inclusive ? w.atLeast(s, String(minimum)) : w.moreThan(s, String(minimum));
    }
    case 'too_big': {
      const { maximum, inclusive, exact, origin } = issue;
      if (Object.hasOwn(w.units, origin)) {
        const unit = origin as Unit;
        if (exact) return w.exactlyAmount(s, amount(lang, w, maximum, unit), unit);
        return w.atMostAmount(s, amount(lang, w, inclusive === false ? Number(maximum) - 1 : maximum, unit), unit);
      }
      if (origin === 'date') return w.onOrBefore(s, dateOf(maximum));
      if (exact) return w.exactly(s, String(maximum));
      return inclusive ? w.atMost(s, String(maximum)) : w.lessThan(s, String(maximum));
    }
    case 'invalid_format': {
      const format = String(issue.format);
      if (format === 'starts_with') return w.startsWith(s, `"${(issue as { prefix?: string }).prefix}"`);
      if (format === 'ends_with') return w.endsWith(s, `"${(issue as { suffix?: string }).suffix}"`);
      if (format === 'includes') return w.contains(s, `"${(issue as { includes?: string }).includes}"`);
      if (format === 'regex') return w.wrongForm(s);
      return Object.hasOwn(w.formats, format) ? w.formats[format as FormatName](s) : w.notValidFormat(s, format.replace(/_/g, ' '));
    }
    case 'not_multiple_of':
      return w.multipleOf(s, String(issue.divisor));
    case 'unrecognized_keys': {
      const keys = issue.keys.map((k) => `"${k}"`);
      return keys.length === 1 ? w.unknownKey(keys[0], field) : w.unknownKeys(oneOf(issue.keys, w.or), field);
    }
    case 'invalid_union': {
      const options = (issue as { options?: unknown[] }).options;
      if (options?.length) return w.mustBeValue(s, oneOf(options, w.or));
      return w.noMatchingForm(s);
    }
    case 'invalid_key': {
      // The path ends at the refused key itself: name it, and the field it sits in.
      const path = issue.path ?? [];
      const key = path[path.length - 1];
      if (key === undefined) return w.keyNameNotAllowed(s);
      return w.keyNotAllowed(`"${String(key)}"`, { path: path.slice(0, -1) });
    }
    case 'invalid_element':
      return w.holdsBadValue(s);
    case 'invalid_value': {
      const values = issue.values;
      if (values.length === 1) return w.mustBeValue(s, shown(values[0]));
      return w.mustBeOneOf(s, oneOf(values, w.or));
    }
    case 'custom': {
      // An issue of a nested parse (a workflow step's config) carries the one it stands for: its words, in this parse's language.
      const inner = (issue as { params?: { issue?: Issue } }).params?.issue;
      return inner ? composeSentence(inner, lang) : w.notValid(s);
    }
    default:
      return undefined;
  }
}

/** The English sentence for one issue: zod's global error map (api/validation.ts). */
export const sentenceFor = (issue: Issue): string | undefined => composeSentence(issue, 'en');

const MAPS: Record<SentenceLanguage, (issue: Issue) => string | undefined> = {
  en: sentenceFor,
  fr: (issue) => composeSentence(issue, 'fr'),
  de: (issue) => composeSentence(issue, 'de'),
};

/** A parse's own error map in `lang` (`schema.safeParse(data, { error: sentencesIn('fr') })`). */
export const sentencesIn = (lang: SentenceLanguage) => MAPS[lang];

/** A message written without its subject ("must be a 24-hour HH:MM time") starts so in English. */
export const SUBJECTLESS = /^(must|is|should|cannot|can't|may)\b/;

/** A message a schema wrote without its subject ("must be a 24-hour HH:MM time") gets the field's label in front. */
export function withSubject(message: string, path: readonly PropertyKey[]): string {
  if (SUBJECTLESS.test(message)) return `${fieldLabel(path)} ${message}`;
  // Other messages keep their words and case: clients and tests match them as written.
  return message;
}

type Translations = { fr: string; de: string };
const PLACEHOLDER = /\{(\w+)\}/g;
/** Placeholders that stand for a number: the rest match any words. */
const NUMBERS = new Set(['n', 'a', 'b']);
const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The catalogue's keys without placeholders, looked up whole. */
const EXACT = new Map<string, Translations>();
/** The others as patterns, the most specific (most fixed words) first. */
const PATTERNS: Array<{ pattern: RegExp; names: string[]; words: Translations; fixed: number }> = [];
for (const [key, words] of Object.entries(OWN_MESSAGES)) {
  const parts = key.split(/\{(\w+)\}/);
  if (parts.length === 1) {
    EXACT.set(key, words);
    continue;
  }
  const names = parts.filter((_, i) => i % 2 === 1);
  const source = parts.map((part, i) => (i % 2 === 0 ? escaped(part) : NUMBERS.has(part) ? '(\\d+)' : '(.+?)')).join('');
  PATTERNS.push({ pattern: new RegExp(`^${source}$`), names, words, fixed: parts.filter((_, i) => i % 2 === 0).join('').length });
}
PATTERNS.sort((a, b) => b.fixed - a.fixed);

/** A schema's own English message in `lang` (lib/fieldSentences/ownMessages.ts), or undefined when the catalogue has none. */
export function ownMessageIn(message: string, path: readonly PropertyKey[], lang: 'fr' | 'de'): string | undefined {
  let values: (name: string) => string = () => '';
  let words = EXACT.get(message);
  if (!words) {
    for (const { pattern, names, words: w } of PATTERNS) {
      const m = pattern.exec(message);
      if (!m) continue;
      words = w;
      values = (name) => m[names.indexOf(name) + 1] ?? '';
      break;
    }
  }
  if (!words) return undefined;
  const subject = FIELD_WORDS[lang].subject({ path });
  const out = words[lang].replace(PLACEHOLDER, (_, name: string) => (name === 'subject' ? subject : values(name)));
  return SUBJECTLESS.test(message) ? `${subject} ${out}` : out;
}

/**
 * An issue's message as a person reads it in `lang`: in English the schema's words with their subject
 * (withSubject); in French or German a schema's own English from the catalogue. A message the parse's
 * error map composed (sentencesIn) is already in `lang` and is kept as it is.
 */
export function issueMessage(message: string, path: readonly PropertyKey[], lang: SentenceLanguage): string {
  if (lang === 'en') return withSubject(message, path);
  return ownMessageIn(message, path, lang) ?? withSubject(message, path);
}
