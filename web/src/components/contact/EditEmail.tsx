import { useState, type FormEvent } from 'react';
import { Button, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/client';
import { useUpdateContact } from '../../api/hooks/contacts';
import { flatFieldOf } from '../dialogs/AddContact';
import { ErrorState } from '../States';

/**
 * "Edit email": PATCH /contacts/:id { email }. A bad address (the flat 400 "email: …") and an address
 * another contact of the project has (409) show under the field.
 */
export function EditEmail({ projectId, contactId, email }: { projectId: string; contactId: string; email: string }) {
  const { t } = useTranslation('contacts');
  const [opened, setOpened] = useState(false);
  const [value, setValue] = useState(email);
  const save = useUpdateContact(projectId, contactId, { onSuccess: () => setOpened(false) });
  const flat = flatFieldOf(save.error);
  const onField = flat?.field === 'email' ? flat.message : save.error instanceof ApiError && save.error.status === 409 ? save.error.message : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({ email: value.trim() });
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
