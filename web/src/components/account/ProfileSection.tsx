import { useState, type FormEvent } from 'react';
import { Paper, Stack, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, fieldError, unwrap, type User } from '../../api/client';
import { ErrorState } from '../States';
import { SaveButton } from '../SaveButton';

export function ProfileSection({ user }: { user: User }) {
  const [name, setName] = useState(user.name ?? '');
  const qc = useQueryClient();
  const save = useMutation({
    meta: { success: 'Profile saved' },
    mutationFn: () => unwrap(api.PATCH('/users/@me', { body: { name } })),
    onSuccess: (me) => qc.setQueryData(['me'], me),
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
            Profile
          </Title>
          <TextInput label="Name" maxLength={100} value={name} onChange={(e) => setName(e.currentTarget.value)} error={fieldError(save.error, 'name')} w={320} />
          {save.error && !fieldError(save.error, 'name') ? <ErrorState error={save.error} title="Not saved" /> : null}
          <SaveButton label="Save" save={save} />
        </Stack>
      </form>
    </Paper>
  );
}
