import { Anchor, Paper, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';

/**
 * Security: the place for sign-in protections. Two-factor authentication has its own screen
 * (/account/two-factor, built separately); its link lives here.
 */
export function SecuritySection() {
  return (
    <Paper withBorder p="md" data-testid="account-security">
      <Stack gap="xs">
        <Title order={2} size="h4">
          Security
        </Title>
        <Text size="sm" c="dimmed">
          Ask for a code from your phone at sign-in, on top of your password.
        </Text>
        <Anchor component={Link} to="/account/two-factor">
          Two-factor authentication
        </Anchor>
      </Stack>
    </Paper>
  );
}
