import type { ReactNode } from 'react';
import { Center, Paper, Stack, Title } from '@mantine/core';

/** The narrow centred card of the screens a person reaches signed out (log in, reset, the links of our emails). */
export function AuthCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={440}>
        <Stack>
          <Title order={1} size="h2">
            {title}
          </Title>
          {children}
        </Stack>
      </Paper>
    </Center>
  );
}
