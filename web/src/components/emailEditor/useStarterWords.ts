import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { starterWords, type StarterWords } from './starterWords';

/** starterWords for the dashboard's current language (kept apart so unit tests of the words need no React). */
export function useStarterWords(): StarterWords {
  const { t } = useTranslation('starters');
  return useMemo(() => starterWords(t), [t]);
}
