import type { SentenceLanguage } from './fieldSentences/types';

const RULES = new Map<SentenceLanguage, Intl.PluralRules>();

/** Which of a word's two forms a count takes in a language ("1 enregistrement", "2 records"): its own plural rule decides. */
export function pluralForm(lang: SentenceLanguage, n: number): 'one' | 'other' {
  let rules = RULES.get(lang);
  if (!rules) RULES.set(lang, (rules = new Intl.PluralRules(lang)));
  return rules.select(n) === 'one' ? 'one' : 'other';
}
