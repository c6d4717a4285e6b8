import { Anchor, Text } from '@mantine/core';
import { Link } from 'react-router';
import { AuthCard } from '../../components/account/AuthCard';
import { ForgotPasswordForm } from '../../components/account/ForgotPasswordForm';
import { useTranslation } from 'react-i18next';

/** `/forgot-password`, from the login screen's "Forgot your password?". */
export default function ForgotPassword() {
  const { t } = useTranslation('account');
  return (
    <AuthCard title={t('forgot.heading')}>
      <Text size="sm" c="dimmed">
        {t('forgot.intro')}
      </Text>
      <ForgotPasswordForm />
      <Anchor component={Link} to="/login" size="sm">
        {t('backToLogin')}
      </Anchor>
    </AuthCard>
  );
}
