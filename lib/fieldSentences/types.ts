/**
 * The shape every language's field sentences fill (en.ts, fr.ts, de.ts): a missing sentence, type word,
 * unit or format fails tsc. lib/zodSentences.ts picks the sentence for a zod issue; these say it.
 */

/** The languages the API composes its field sentences in (the request's Accept-Language, api/language.ts). */
export const SENTENCE_LANGUAGES = ['en', 'fr', 'de'] as const;
export type SentenceLanguage = (typeof SENTENCE_LANGUAGES)[number];

/** A field as a sentence names it: where it sits in the input, and the label its schema gave (`.meta({ label })`), if any. */
export interface Field {
  path: readonly PropertyKey[];
  own?: string;
}

export type TypeName = 'string' | 'number' | 'int' | 'bigint' | 'boolean' | 'array' | 'object' | 'date' | 'null' | 'literal';
export type Unit = 'string' | 'array' | 'set' | 'map' | 'file';
export type FormatName =
  | 'email'
  | 'url'
  | 'uuid'
  | 'guid'
  | 'datetime'
  | 'date'
  | 'time'
  | 'duration'
  | 'ipv4'
  | 'ipv6'
  | 'cidrv4'
  | 'cidrv6'
  | 'json_string'
  | 'base64'
  | 'base64url'
  | 'e164'
  | 'jwt'
  | 'emoji';

/** `s` is always the sentence's subject as `subject(field)` wrote it; `amount` is a number with its unit ("10 characters"). */
export interface FieldWords {
  /** The field as the subject of a sentence: "Password", "Item 3 of tags", « Le champ « Mot de passe » », "Ce champ". */
  subject(field: Field): string;
  /** "or" between the last two of a list of values. */
  or: string;
  types: Record<TypeName, string>;
  /** Singular and plural of each unit a length is counted in. */
  units: Record<Unit, { one: string; other: string }>;
  formats: Record<FormatName, (s: string) => string>;

  required(s: string): string;
  finite(s: string): string;
  mustBe(s: string, what: string): string;
  needsOne(s: string, unit: Unit, one: string): string;
  exactlyAmount(s: string, amount: string, unit: Unit): string;
  atLeastAmount(s: string, amount: string, unit: Unit): string;
  atMostAmount(s: string, amount: string, unit: Unit): string;
  onOrAfter(s: string, date: string): string;
  onOrBefore(s: string, date: string): string;
  exactly(s: string, n: string): string;
  atLeast(s: string, n: string): string;
  moreThan(s: string, n: string): string;
  atMost(s: string, n: string): string;
  lessThan(s: string, n: string): string;
  startsWith(s: string, prefix: string): string;
  endsWith(s: string, suffix: string): string;
  contains(s: string, part: string): string;
  wrongForm(s: string): string;
  notValidFormat(s: string, format: string): string;
  multipleOf(s: string, divisor: string): string;
  /** An unknown key (quoted) in the object at `field` (the whole body when its path is empty). */
  unknownKey(key: string, field: Field): string;
  unknownKeys(keys: string, field: Field): string;
  noMatchingForm(s: string): string;
  mustBeValue(s: string, value: string): string;
  mustBeOneOf(s: string, values: string): string;
  keyNameNotAllowed(s: string): string;
  /** A refused key (quoted) of the record at `parent`. */
  keyNotAllowed(key: string, parent: Field): string;
  holdsBadValue(s: string): string;
  notValid(s: string): string;
}
