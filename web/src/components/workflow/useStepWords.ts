import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { stepWords, type StepWords } from './stepWords';

/** stepWords for the dashboard's current language (kept apart so unit tests of the words need no React). */
export function useStepWords(): StepWords {
  const { t } = useTranslation('steps');
  return useMemo(() => stepWords(t), [t]);
}
