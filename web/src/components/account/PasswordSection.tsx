import { useState, type FormEvent } from 'react';
import { Alert, Button, Group, Paper, PasswordInput, Stack, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, fieldError, unwrap } from '../../api/client';
import { keys } from '../../api/queryKeys';
import { ErrorState } from '../States';
import { useTranslation } from 'react-i18next';

/** "Current password", "New password", "Change password": every other session ends, this one stays. */
export function PasswordSection() {
  const { t } = useTranslation('account');
  const [currentPassword, setCurrent] = useState('');
  const [newPassword, setNew] = useState('');
  const qc = useQueryClient();
  const change = useMutation({
    mutationFn: () => unwrap(api.POST('/users/@me/password', { body: { currentPassword, newPassword } })),
    onSuccess: () => {
      setCurrent('');
      setNew('');
      return qc.invalidateQueries({ queryKey: keys.sessions() });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    change.mutate();
  };
  const onField = fieldError(change.error, 'currentPassword') || fieldError(change.error, 'newPassword');
  return (
    <Paper withBorder p="md">
      <form onSubmit={submit}>
        <Stack>
          <Title order={2} size="h4">
            {t('password.heading')}
          </Title>
          <PasswordInput
            label={t('password.current')}
            autoComplete="current-password"
            required
            value={currentPassword}
            onChange={(e) => setCurrent(e.currentTarget.value)}
            error={fieldError(change.error, 'currentPassword')}
            w={320}
          />
          <PasswordInput
            label={t('reset.newPassword')}
            autoComplete="new-password"
            required
            minLength={8}
            value={newPassword}
            onChange={(e) => setNew(e.currentTarget.value)}
            error={fieldError(change.error, 'newPassword')}
            w={320}
          />
          {change.error && !onField ? <ErrorState error={change.error} title={t('password.notChanged')} /> : null}
          {change.data ? (
            <Alert color="green" role="status">
              {change.data.message}
            </Alert>
          ) : null}
          <Group>
            <Button type="submit" loading={change.isPending}>
              {t('password.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}
