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
