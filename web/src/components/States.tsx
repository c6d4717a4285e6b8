import { Alert, Center, Loader, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** The three states every screen has besides its data. */
export function Loading({ label }: { label?: string }) {
  const { t } = useTranslation();
  return (
    <Center py="xl" role="status" aria-live="polite">
      <Loader size="sm" mr="sm" />
      <Text c="dimmed">{label ?? t('loading')}</Text>
    </Center>
  );
}

/** Shows the API's own message (api/client.ts ApiError). */
export function ErrorState({ error, title }: { error: unknown; title?: string }) {
  const { t } = useTranslation();
  const message = error instanceof Error ? error.message : String(error);
  return (
    <Alert color="red" title={title ?? t('somethingWentWrong')} role="alert" my="md" data-testid="error-state">
      {message}
    </Alert>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return (
    <Text c="dimmed" py="lg" ta="center">
      {children}
    </Text>
  );
}
