import { Alert } from '@mantine/core';
import { useMe } from '../../api/session';
import { ResendVerification } from './ResendVerification';
import { useTranslation } from 'react-i18next';

/** Shown on every dashboard screen until the signed-in address is confirmed. */
export function VerifyBanner() {
  const { t } = useTranslation('account');
  const me = useMe();
  if (!me.data || me.data.emailVerified) return null;
  return (
    <Alert color="blue" mb="md" title={t('verify.bannerTitle')} data-testid="verify-banner">
      {t('verify.banner', { email: me.data.email })}
      <ResendVerification />
    </Alert>
  );
}
