import { useTranslation } from 'react-i18next';
import { countWords } from '../api/countWords';

/**
 * A count as the screens' sentences take it ("{{n}} contacts"): exact in the person's locale, or, when
 * the API estimated it, "about 2.4 million".
 */
export function useCountWords(): (value: number, estimated?: boolean) => string {
  const { t } = useTranslation();
  return (value, estimated) => {
    const { text, about } = countWords(value, estimated);
    return about ? t('aboutCount', { value: text }) : text;
  };
}
