import type { FilterOperator, FilterUnit } from '../../../db/filters/model';
import type { SentenceLanguage } from '../../../lib/fieldSentences/types';

/**
 * The shape every language's step-summary words fill (en.ts, fr.ts, de.ts): a missing operator, unit,
 * weekday or sentence fails tsc. temporal/steps/words.ts picks the language; the built-in step files
 * compose their `summary` from these. Plain data and small functions: step files are bundled into the
 * workflow sandbox (which never calls a summary), so nothing here builds an Intl object on load.
 */

/** The languages summaries are written in: the API's sentence languages (the request's Accept-Language). */
export type SummaryLanguage = SentenceLanguage;

/** Weekdays as WAIT_UNTIL's config names them. */
export type Weekday = 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun';

/**
 * A unit's word by the plural category of its amount (Intl.PluralRules of the language: `one` or
 * `other` for en, fr and de); `dative` is the plural after a dative preposition (German "innerhalb von
 * 3 Tagen"), the same as `other` where the language does not decline.
 */
export interface UnitWords {
  one: string;
  other: string;
  dative: string;
}

/** What a filter's words are made of; `span`/`spanDative` say a `value` `unit` duration in the language. */
export interface FilterParts {
  field: string;
  /** The value as English showed it (a list joined by ", "), '' when absent. */
  value: string;
  /** The raw value, for operators whose value is not a scalar (`atLeastWithin`). */
  raw: unknown;
  /** The unit as stored (`days`), '' when absent. */
  unit: string;
  span(amount: unknown): string;
  spanDative(amount: unknown): string;
}

export interface SummaryWords {
  /** The language's quotation marks around a name: “signup”, « signup », „signup“. */
  quote(text: string): string;
  /** An amount as the language writes it (1.5, 1,5). */
  number(n: number): string;
  units: Record<FilterUnit, UnitWords>;
  weekdays: Record<Weekday, string>;
  /** Between the clauses of a filter group, and between groups under AND / OR logic. */
  and: string;
  or: string;
  /** A filter tree with no filter. */
  anyCondition: string;
  filters: Record<FilterOperator, (p: FilterParts) => string>;

  /** A step whose type the registry no longer has. */
  unknownStep: string;
  trigger(event: string): string;
  delay(span: string): string;
  exit: string;
  split(parts: string): string;
  condition(filter: string): string;
  /** `what`: a quoted subject, `template(…)` or `missingTemplate`; `topic`: a quoted topic name. */
  send(what: string, topic?: string): string;
  template(name: string): string;
  missingTemplate: string;
  waitForEvent(event: string, span?: string): string;
  /** `days`: weekday words joined by ", ". */
  waitUntilTime(at: string, days?: string): string;
  /** `offset`: "+ 2 days", "− 1 hour", absent at zero. */
  waitUntilField(field: string, offset?: string): string;
  /** UPDATE_CONTACT's parts, joined by `separator`, the first letter of the whole made upper case. */
  setFields(fields: string): string;
  subscribe: string;
  unsubscribe: string;
  separator: string;
}
