import { useState, type FormEvent } from 'react';
import { Alert, Anchor, Button, PasswordInput, Stack, Text } from '@mantine/core';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, fieldError, unwrap } from '../../api/client';
import { AuthCard } from '../../components/account/AuthCard';
import { ForgotPasswordForm } from '../../components/account/ForgotPasswordForm';
import { ErrorState } from '../../components/States';
import { useTranslation } from 'react-i18next';

/**
 * `/reset-password?token=…`, the link of the reset email: "New password" + "Reset password". The
 * server signs the person in (and ends every other session), so success goes straight to the
 * dashboard. A used or expired link says so and offers the form that sends a new one.
 */
export default function ResetPassword() {
  const { t } = useTranslation('account');
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [password, setPassword] = useState('');
  const navigate = useNavigate();
  const qc = useQueryClient();
  const reset = useMutation({
    mutationFn: () => unwrap(api.POST('/auth/reset-password', { body: { token, password } })),
    onSuccess: (done) => {
      // Whatever was cached belonged to whoever was signed in before.
      qc.removeQueries();
      // An account with 2FA is not signed in by the link alone: its code comes next.
      void navigate(done.twoFactorRequired ? '/login?step=two-factor' : '/', { replace: true });
    },
  });
  const deadLink = !token || (reset.error instanceof ApiError && (reset.error.code === 'INVALID_TOKEN' || fieldError(reset.error, 'token')));
  if (deadLink) {
    return (
      <AuthCard title={t('deadLink')}>
        <Alert color="yellow" role="alert">
          {t('reset.dead')}
        </Alert>
        <ForgotPasswordForm />
        <Anchor component={Link} to="/login" size="sm">
          {t('backToLogin')}
        </Anchor>
      </AuthCard>
    );
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    reset.mutate();
  };
  return (
    <AuthCard title={t('reset.heading')}>
      <form onSubmit={submit}>
        <Stack>
          <Text size="sm" c="dimmed">
            {t('reset.intro')}
          </Text>
          <PasswordInput
            label={t('reset.newPassword')}
            autoComplete="new-password"
            required
            minLength={8}
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            error={fieldError(reset.error, 'password')}
          />
          {reset.error && !fieldError(reset.error, 'password') ? <ErrorState error={reset.error} title={t('reset.notChanged')} /> : null}
          <Button type="submit" loading={reset.isPending}>
            {t('reset.submit')}
          </Button>
        </Stack>
      </form>
    </AuthCard>
  );
}
