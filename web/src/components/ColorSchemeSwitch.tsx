import { Switch, useComputedColorScheme, useMantineColorScheme } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/**
 * "Dark theme": shows the scheme in use (the system's until the person chooses) and switches it; the
 * choice is kept in this browser (main.tsx's color scheme manager).
 */
export function ColorSchemeSwitch() {
  const { t } = useTranslation('frame');
  const { setColorScheme } = useMantineColorScheme();
  const computed = useComputedColorScheme('light', { getInitialValueInEffect: false });
  return <Switch size="sm" label={t('darkTheme')} checked={computed === 'dark'} onChange={(e) => setColorScheme(e.currentTarget.checked ? 'dark' : 'light')} />;
}
