import { Alert, Button, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { TWO_FACTOR_PAGE } from '../../api/twoFactor';
import { useTranslation } from 'react-i18next';

/** What a member without 2FA sees of a project whose owner requires it (the API answers 403 TWO_FACTOR_REQUIRED). */
export function TwoFactorRequired({ projectName }: { projectName: string }) {
  const { t } = useTranslation('account');
  return (
    <Alert color="yellow" title={t('secondFactor.requiredTitle')} role="alert">
      <Stack gap="sm">
        <Text size="sm">{t('secondFactor.required', { project: projectName })}</Text>
        <Button component={Link} to={TWO_FACTOR_PAGE} w="fit-content">
          {t('secondFactor.setUp')}
        </Button>
      </Stack>
    </Alert>
  );
}
