import type { DurationUnit } from './types';
import { de } from './summaryWords/de';
import { en } from './summaryWords/en';
import { fr } from './summaryWords/fr';
import type { FilterParts, SummaryLanguage, SummaryWords } from './summaryWords/types';

export type { SummaryLanguage, SummaryWords } from './summaryWords/types';

/**
 * Words for step summaries (a node's line on the canvas), in the request's language (en, fr, de;
 * the catalogues in summaryWords/). Pure functions of a config, run on the Node side only (the API
 * computes summaries); step files import them for their `summary`.
 */

const CATALOGUES: Record<SummaryLanguage, SummaryWords> = { en, fr, de };

/** The catalogue of a language; English for anything else (a plugin may pass what it was given). */
export const summaryWords = (lang: SummaryLanguage = 'en'): SummaryWords => CATALOGUES[lang] ?? en;

/** Built when first asked, never on load: step files are bundled into the workflow sandbox. */
const pluralRules = new Map<SummaryLanguage, Intl.PluralRules>();
function pluralOf(lang: SummaryLanguage, amount: number): 'one' | 'other' {
  let rules = pluralRules.get(lang);
  if (!rules) pluralRules.set(lang, (rules = new Intl.PluralRules(lang)));
  return rules.select(amount) === 'one' ? 'one' : 'other';
}

/** "1 day", "2 days", "90 minutes"; « 1,5 jour », „2 Tage“ (`dative`: „2 Tagen“ after a German preposition). */
export function durationWords(d: { amount: number; unit: DurationUnit | string }, lang: SummaryLanguage = 'en', dative = false): string {
  const words = summaryWords(lang);
  const unit = words.units[d.unit as keyof SummaryWords['units']];
  // A unit no catalogue knows (a plugin's) keeps the English rule on the word as given.
  if (!unit) return `${words.number(d.amount)} ${d.amount === 1 ? d.unit.replace(/s$/, '') : d.unit}`;
  const form = pluralOf(lang, d.amount);
  return `${words.number(d.amount)} ${form === 'one' ? unit.one : dative ? unit.dative : unit.other}`;
}

/** “name” (English), « name » (French), „name“ (German). */
export const quoted = (text: string, lang: SummaryLanguage = 'en') => summaryWords(lang).quote(text);

type Filter = { field?: string; operator?: string; value?: unknown; unit?: string };
type Tree = { logic?: string; groups?: { filters?: Filter[]; conditions?: Tree }[] };

function filterClause(f: Filter, words: SummaryWords, lang: SummaryLanguage): string {
  const span = (dative: boolean) => (amount: unknown) =>
    typeof amount === 'number' && f.unit
      ? durationWords({ amount, unit: f.unit }, lang, dative)
      : [amount, f.unit].filter((x) => x !== undefined && x !== '').join(' ');
  const parts: FilterParts = {
    field: String(f.field ?? '').replace(/^data\./, ''),
    value: Array.isArray(f.value) ? f.value.join(', ') : f.value === undefined ? '' : String(f.value),
    raw: f.value,
    unit: f.unit ?? '',
    span: span(false),
    spanDative: span(true),
  };
  const op = String(f.operator);
  const say = Object.hasOwn(words.filters, op) ? words.filters[op as keyof SummaryWords['filters']] : undefined;
  // An operator no catalogue knows is named as stored, as English always did.
  return say ? say(parts) : [parts.field, String(f.operator ?? ''), parts.value, parts.unit].filter(Boolean).join(' ');
}

/** "plan is pro", "plan is pro and country is de": a filter tree (db/filters/model.ts) in words. */
export function filterWords(tree: unknown, lang: SummaryLanguage = 'en'): string {
  const words = summaryWords(lang);
  const t = (tree ?? {}) as Tree;
  const joiner = t.logic === 'OR' ? words.or : words.and;
  const groups = (t.groups ?? []).map((g) => {
    const parts = (g.filters ?? []).map((f) => filterClause(f, words, lang));
    if (g.conditions) parts.push(`(${filterWords(g.conditions, lang)})`);
    return parts.join(words.and);
  });
  return groups.filter(Boolean).join(joiner) || words.anyCondition;
}
