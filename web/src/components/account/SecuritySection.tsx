import { Anchor, Paper, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';

/**
 * Security: the place for sign-in protections. Two-factor authentication has its own screen
 * (/account/two-factor, built separately); its link lives here.
 */
export function SecuritySection() {
  const { t } = useTranslation('account');
  return (
    <Paper withBorder p="md" data-testid="account-security">
      <Stack gap="xs">
        <Title order={2} size="h4">
          {t('security.heading')}
        </Title>
        <Text size="sm" c="dimmed">
          {t('security.intro')}
        </Text>
        <Anchor component={Link} to="/account/two-factor">
          {t('security.twoFactor')}
        </Anchor>
      </Stack>
    </Paper>
  );
}
