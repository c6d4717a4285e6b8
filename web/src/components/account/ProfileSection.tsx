import { useState, type FormEvent } from 'react';
import { Paper, Stack, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, fieldError, unwrap, type User } from '../../api/client';
import { keys } from '../../api/queryKeys';
import { ErrorState } from '../States';
import { SaveButton } from '../SaveButton';
import { useTranslation } from 'react-i18next';
import { LanguageSelect } from './LanguageSelect';

export function ProfileSection({ user }: { user: User }) {
  const { t } = useTranslation(['account', 'common']);
  const [name, setName] = useState(user.name ?? '');
  const qc = useQueryClient();
  const save = useMutation({
    meta: { success: 'Profile saved' },
    mutationFn: () => unwrap(api.PATCH('/users/@me', { body: { name } })),
    onSuccess: (me) => qc.setQueryData(keys.me(), me),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <Paper withBorder p="md">
      <form onSubmit={submit}>
        <Stack>
          <Title order={2} size="h4">
            {t('profile.heading')}
          </Title>
          <TextInput
            label={t('profile.name')}
            maxLength={100}
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={fieldError(save.error, 'name')}
            w={320}
          />
          {save.error && !fieldError(save.error, 'name') ? <ErrorState error={save.error} title={t('profile.notSaved')} /> : null}
          <SaveButton label={t('common:save')} save={save} />
        </Stack>
      </form>
      <Stack mt="md">
        <LanguageSelect user={user} />
      </Stack>
    </Paper>
  );
}
