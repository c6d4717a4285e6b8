import { Alert, Anchor, Button, Text } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap } from '../../api/client';
import { keys } from '../../api/queryKeys';
import { useMe } from '../../api/session';
import { AuthCard } from '../../components/account/AuthCard';
import { ResendVerification } from '../../components/account/ResendVerification';
import { ErrorState } from '../../components/States';
import { useTranslation } from 'react-i18next';

/**
 * `/verify-email?token=…`, the link of the verification email. Confirming is a button press, not
 * the opening of the page: mail scanners open links (DESIGN §7, changes on POST only).
 */
export default function VerifyEmail() {
  const { t } = useTranslation('account');
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const me = useMe();
  const qc = useQueryClient();
  const verify = useMutation({
    mutationFn: () => unwrap(api.POST('/auth/verify-email', { body: { token } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.me() }),
  });
  const continueLink = (
    <Anchor component={Link} to="/" size="sm">
      {t('continueToDashboard')}
    </Anchor>
  );
  if (verify.data) {
    return (
      <AuthCard title={t('verify.done')}>
        <Text>{t('verify.doneBody', { email: verify.data.email })}</Text>
        {continueLink}
      </AuthCard>
    );
  }
  const dead = !token || (verify.error instanceof ApiError && verify.error.status < 500);
  if (dead) {
    return (
      <AuthCard title={t('deadLink')}>
        <Alert color="yellow" role="alert">
          {t('verify.dead')}
        </Alert>
        {me.data && !me.data.emailVerified ? <ResendVerification /> : null}
        {me.data ? (
          continueLink
        ) : (
          <Anchor component={Link} to="/login" size="sm">
            {t('verify.logInForNew')}
          </Anchor>
        )}
      </AuthCard>
    );
  }
  return (
    <AuthCard title={t('verify.heading')}>
      <Text size="sm">{t('verify.intro')}</Text>
      {verify.error ? <ErrorState error={verify.error} /> : null}
      <Button loading={verify.isPending} onClick={() => verify.mutate()}>
        {t('verify.submit')}
      </Button>
    </AuthCard>
  );
}
