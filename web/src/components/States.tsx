import { Alert, Center, Loader, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** The three states every screen has besides its data. */
export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <Center py="xl" role="status" aria-live="polite">
      <Loader size="sm" mr="sm" />
      <Text c="dimmed">{label}</Text>
    </Center>
  );
}

/** Shows the API's own message (api/client.ts ApiError). */
export function ErrorState({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  const message = error instanceof Error ? error.message : String(error);
  return (
    <Alert color="red" title={title} role="alert" my="md" data-testid="error-state">
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
