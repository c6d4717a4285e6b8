import { useState } from 'react';
import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useDeleteContact } from '../../api/hooks/contacts';
import { ErrorState } from '../States';

/** "Delete contact", asked first; then back to the list. */
export function DeleteContact({ projectId, contactId, email }: { projectId: string; contactId: string; email: string }) {
  const { t } = useTranslation('contacts');
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const remove = useDeleteContact(projectId, contactId, {
    meta: { success: t('detail.deleted') },
    onSuccess: () => navigate(`/p/${projectId}/contacts`),
  });
  return (
    <>
      <Button color="red" variant="light" onClick={() => setConfirming(true)}>
        {t('detail.deleteContact')}
      </Button>
      <Modal opened={confirming} onClose={() => setConfirming(false)} title={t('detail.deleteTitle')} closeButtonProps={{ 'aria-label': t('close') }}>
        <Stack>
          <Text>{t('detail.deleteBody', { email })}</Text>
          {remove.error ? <ErrorState error={remove.error} /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(false)}>
              {t('cancel')}
            </Button>
            <Button color="red" loading={remove.isPending} onClick={() => remove.mutate()}>
              {t('delete')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
