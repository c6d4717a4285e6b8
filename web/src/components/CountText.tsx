import { useTranslation } from 'react-i18next';
import { countWords } from './countWords';

/** A count in the person's locale; an estimated one reads "about 2.4 million", with why in its title. */
export function CountText({ value, estimated }: { value: number; estimated?: boolean }) {
  const { t } = useTranslation();
  const { text, about } = countWords(value, estimated);
  if (!about) return <>{text}</>;
  return (
    <span title={t('estimatedCountHint')} data-estimated="yes">
      {t('aboutCount', { value: text })}
    </span>
  );
}
