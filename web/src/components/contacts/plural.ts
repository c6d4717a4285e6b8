import { intlLocale } from '../../i18n/locale';

/**
 * Which of a count sentence's two forms ({ one, other } in the contacts catalogue) fits `n` in the
 * dashboard's language: French says "0 contact", English "0 contacts". Intl's other categories
 * (French "many" for millions) read as "other", so every language keeps the same two keys.
 */
export const pluralOf = (n: number): 'one' | 'other' => (new Intl.PluralRules(intlLocale()).select(n) === 'one' ? 'one' : 'other');
