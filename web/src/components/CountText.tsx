import { useTranslation } from 'react-i18next';
import { countText } from '../api/countWords';

/**
 * A count as the screens' sentences take it ("{{n}} contacts"): exact in the person's locale, or, when
 * the API estimated it, "about 2.4 million".
 */
export function useCountWords(): (value: number, estimated?: boolean) => string {
  // Subscribed to the language, so a screen that counts is drawn again when it changes.
  useTranslation();
  return countText;
}
