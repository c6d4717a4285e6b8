import '@mantine/core/styles.css';
// The catalogues and the language (the browser's, until the person's setting is known: AppFrame).
import { languageReady } from './i18n';
import i18n from 'i18next';
import '@mantine/notifications/styles.css';
import { type ReactNode, StrictMode, useMemo } from 'react';
import { createRoot } from 'react-dom/client';
import { localStorageColorSchemeManager, MantineProvider } from '@mantine/core';
import { cssVariablesResolver, themeIn } from './theme';
import { useTranslation } from 'react-i18next';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { routes } from './routes';
import { Notifications } from '@mantine/notifications';
import { toastingMutationCache } from './components/notify';

const queryClient = new QueryClient({
  // Every mutation ends in a toast: its failure in the API's words, its success where its `meta` names one.
  mutationCache: toastingMutationCache(),
  defaultOptions: {
    // An error shows the API's message at once; a 4xx does not get better by retrying.
    queries: { retry: false, refetchOnWindowFocus: false },
  },
});

// The API writes some words in the language each call asks for (summaries, check sentences, problems:
// Accept-Language, api/client.ts): a language change fetches again what the screens hold.
i18n.on('languageChanged', () => void queryClient.invalidateQueries());

/** Light or dark follows the system until the person picks one with the "Dark theme" switch; the choice is kept in this browser. */
const colorSchemeManager = localStorageColorSchemeManager({ key: 'svc-mail-color-scheme' });
const router = createBrowserRouter(routes, { basename: '/app' });

/** Mantine with the theme in the person's language (its icon buttons' names), rebuilt when the language changes. */
function Themed({ children }: { children: ReactNode }) {
  const { t } = useTranslation('common');
  const theme = useMemo(() => themeIn({ close: t('close'), passwordVisibility: t('passwordVisibility') }), [t]);
  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="auto" colorSchemeManager={colorSchemeManager}>
      {children}
    </MantineProvider>
  );
}

// A browser in French or German first fetches its catalogues (a few KB), so the first screen is in its language.
void languageReady.then(() =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <Themed>
        {/* A toast never stands between the pointer and the page under it: pointer-events is inherited, so only its buttons, which ask for them, take clicks (components/notify.tsx). */}
        <Notifications position="bottom-right" limit={4} styles={{ root: { pointerEvents: 'none' } }} />
        <QueryClientProvider client={queryClient}>
          <RouterProvider router={router} />
        </QueryClientProvider>
      </Themed>
    </StrictMode>,
  ),
);
