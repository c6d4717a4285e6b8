import { useState, type FormEvent } from 'react';
import { Alert, Button, Stack, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ErrorState } from '../States';
import { useTranslation } from 'react-i18next';

/**
 * "Email" + "Send reset link". The server answers the same words whether or not the account exists,
 * and so does this form: it shows the server's message, never a guess of its own.
 */
export function ForgotPasswordForm({ initialEmail = '' }: { initialEmail?: string }) {
  const { t } = useTranslation('account');
  const [email, setEmail] = useState(initialEmail);
  const send = useMutation({ mutationFn: () => unwrap(api.POST('/auth/request-password-reset', { body: { email } })) });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    send.mutate();
  };
  return (
    <form onSubmit={submit}>
      <Stack>
        <TextInput label={t('auth.email')} type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.currentTarget.value)} />
        {send.error ? <ErrorState error={send.error} title={t('notSent')} /> : null}
        {send.data ? (
          <Alert color="green" role="status">
            {send.data.message}
          </Alert>
        ) : null}
        <Button type="submit" loading={send.isPending}>
          {t('forgot.send')}
        </Button>
      </Stack>
    </form>
  );
}
