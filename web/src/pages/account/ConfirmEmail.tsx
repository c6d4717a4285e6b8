import { Alert, Anchor, Button, Text } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap } from '../../api/client';
import { keys } from '../../api/queryKeys';
import { AuthCard } from '../../components/account/AuthCard';
import { ErrorState } from '../../components/States';
import { useTranslation } from 'react-i18next';

/** `/confirm-email?token=…`, the link mailed to a new address: the change applies on the button press. */
export default function ConfirmEmail() {
  const { t } = useTranslation('account');
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const qc = useQueryClient();
  const confirm = useMutation({
    mutationFn: () => unwrap(api.POST('/auth/confirm-email-change', { body: { token } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.me() }),
  });
  if (confirm.data) {
    return (
      <AuthCard title={t('confirm.done')}>
        <Text>{t('confirm.doneBody', { email: confirm.data.email })}</Text>
        <Anchor component={Link} to="/account" size="sm">
          {t('backToAccount')}
        </Anchor>
      </AuthCard>
    );
  }
  const dead = !token || (confirm.error instanceof ApiError && (confirm.error.code === 'INVALID_TOKEN' || confirm.error.status === 422));
  if (dead) {
    return (
      <AuthCard title={t('deadLink')}>
        <Alert color="yellow" role="alert">
          {t('confirm.dead')}
        </Alert>
        <Anchor component={Link} to="/account" size="sm">
          {t('yourAccount')}
        </Anchor>
      </AuthCard>
    );
  }
  return (
    <AuthCard title={t('confirm.heading')}>
      <Text size="sm">{t('confirm.intro')}</Text>
      {confirm.error ? <ErrorState error={confirm.error} title={t('confirm.failed')} /> : null}
      <Button loading={confirm.isPending} onClick={() => confirm.mutate()}>
        {t('confirm.submit')}
      </Button>
    </AuthCard>
  );
}
