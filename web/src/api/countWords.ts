import i18n from 'i18next';
import { intlLocale } from '../i18n/locale';

/**
 * A count's digits as a person reads them in their locale: exact ("1,234,567"), or, when the API
 * estimated it (`estimated: true`, docs/capacity.md "Estimated counts"), rounded in words
 * ("2.4 million", "2,4 millions", "2,4 Millionen") for CountText to say "about" before.
 */
export function countWords(value: number, estimated: boolean | undefined, locale = intlLocale()): { text: string; about: boolean } {
  if (!estimated) return { text: new Intl.NumberFormat(locale).format(value), about: false };
  return { text: new Intl.NumberFormat(locale, { notation: 'compact', compactDisplay: 'long', maximumFractionDigits: 1 }).format(value), about: true };
}

/** A count as the screens' sentences take it ("{{n}} contacts"): its digits, or "about 2.4 million" in the dashboard's language. */
export function countText(value: number, estimated?: boolean): string {
  const { text, about } = countWords(value, estimated);
  return about ? i18n.getFixedT(null, 'common')('aboutCount', { value: text }) : text;
}
