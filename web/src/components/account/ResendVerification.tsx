import { Button, Group, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ErrorState } from '../States';
import { useTranslation } from 'react-i18next';

/** "Resend verification email" (POST /auth/request-verification: at most five an hour), with the server's answer. */
export function ResendVerification() {
  const { t } = useTranslation('account');
  const resend = useMutation({ mutationFn: () => unwrap(api.POST('/auth/request-verification')) });
  return (
    <>
      <Group gap="sm">
        <Button size="xs" variant="white" loading={resend.isPending} onClick={() => resend.mutate()}>
          {t('verify.resend')}
        </Button>
        {resend.data ? (
          <Text size="sm" role="status">
            {resend.data.message}
          </Text>
        ) : null}
      </Group>
      {resend.error ? <ErrorState error={resend.error} title={t('notSent')} /> : null}
    </>
  );
}
