import { useState, type FormEvent } from 'react';
import { Alert, Badge, Button, Group, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { api, fieldError, unwrap, type User } from '../../api/client';
import { ErrorState } from '../States';
import { ResendVerification } from './ResendVerification';
import { useTranslation } from 'react-i18next';

/** The address, its state, and a change that applies only once the new address's link is opened. */
export function EmailSection({ user }: { user: User }) {
  const { t } = useTranslation('account');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const change = useMutation({
    mutationFn: () => unwrap(api.POST('/users/@me/email', { body: { email, password } })),
    onSuccess: () => setPassword(''),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    change.mutate();
  };
  const own = (f: string) => !!fieldError(change.error, f);
  return (
    <Paper withBorder p="md">
      <Stack>
        <Title order={2} size="h4">
          {t('email.heading')}
        </Title>
        <Group gap="xs">
          <Text>{user.email}</Text>
          {user.emailVerified ? (
            <Badge color="green" variant="light">
              {t('email.confirmed')}
            </Badge>
          ) : (
            <Badge color="yellow" variant="light">
              {t('email.notConfirmed')}
            </Badge>
          )}
        </Group>
        {user.emailVerified ? null : <ResendVerification />}
        <form onSubmit={submit}>
          <Stack>
            <Text size="sm" c="dimmed">
              {t('email.intro')}
            </Text>
            <TextInput
              label={t('email.newAddress')}
              type="email"
              autoComplete="email"
              required
              value={email}
              onChange={(e) => setEmail(e.currentTarget.value)}
              error={fieldError(change.error, 'email')}
              w={320}
            />
            <PasswordInput
              label={t('auth.password')}
              description={t('email.currentPassword')}
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
              error={fieldError(change.error, 'password')}
              w={320}
            />
            {change.error && !own('email') && !own('password') ? <ErrorState error={change.error} title={t('confirm.failed')} /> : null}
            {change.data ? (
              <Alert color="green" role="status">
                {change.data.message}
              </Alert>
            ) : null}
            <Group>
              <Button type="submit" loading={change.isPending}>
                {t('email.submit')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Stack>
    </Paper>
  );
}
