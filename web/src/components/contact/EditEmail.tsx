import { useState, type FormEvent } from 'react';
import { Button, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, ApiError, unwrap } from '../../api/client';
import { keys } from '../../api/queryKeys';
import { flatFieldOf } from '../dialogs/AddContact';
import { ErrorState } from '../States';

/**
 * "Edit email": PATCH /contacts/:id { email }. A bad address (the flat 400 "email: …") and an address
 * another contact of the project has (409) show under the field.
 */
export function EditEmail({ projectId, contactId, email }: { projectId: string; contactId: string; email: string }) {
  const { t } = useTranslation('contacts');
  const qc = useQueryClient();
  const [opened, setOpened] = useState(false);
  const [value, setValue] = useState(email);
  const save = useMutation({
    mutationFn: () => unwrap(api.PATCH('/contacts/{id}', { params: { path: { id: contactId } }, body: { email: value.trim() } })),
    onSuccess: async (data) => {
      setOpened(false);
      qc.setQueryData(keys.contacts.one(projectId, contactId), data);
      await qc.invalidateQueries({ queryKey: keys.contacts.all(projectId) });
    },
  });
  const flat = flatFieldOf(save.error);
  const onField = flat?.field === 'email' ? flat.message : save.error instanceof ApiError && save.error.status === 409 ? save.error.message : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <>
      <Button
        size="xs"
        variant="subtle"
        onClick={() => {
          setValue(email);
          save.reset();
          setOpened(true);
        }}
      >
        {t('editEmail.button')}
      </Button>
      <Modal opened={opened} onClose={() => setOpened(false)} title={t('editEmail.button')} closeButtonProps={{ 'aria-label': t('close') }}>
        <form onSubmit={submit} noValidate>
          <Stack>
            <TextInput
              label={t('email')}
              type="email"
              value={value}
              onChange={(e) => setValue(e.currentTarget.value)}
              error={onField}
              required
              data-autofocus
            />
            {save.error && !onField ? <ErrorState error={save.error} title={t('notSaved')} /> : null}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setOpened(false)}>
                {t('cancel')}
              </Button>
              <Button type="submit" loading={save.isPending}>
                {t('editEmail.save')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
