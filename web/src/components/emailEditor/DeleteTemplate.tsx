import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, unwrap } from '../../api/client';
import { keys } from '../../api/queryKeys';
import { ErrorState } from '../States';
import type { Template } from './templateDraft';
import { useTranslation } from 'react-i18next';

/** "Delete template", asked first; once deleted, back to the templates list. */
export function DeleteTemplate({ projectId, template, onClose }: { projectId: string; template: Template; onClose(): void }) {
  const { t } = useTranslation('editor');
  const qc = useQueryClient();
  const navigate = useNavigate();
  const remove = useMutation({
    meta: { success: t('templateEditor.deleted') },
    mutationFn: () => unwrap(api.DELETE('/templates/{id}', { params: { path: { id: template.id } } })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: keys.templates.all(projectId) });
      void navigate(`/p/${projectId}/templates`, { replace: true });
    },
  });
  return (
    <Modal opened onClose={onClose} title={t('templateEditor.deleteHeading')}>
      <Stack>
        <Text>{t('templateEditor.deleteText', { name: template.name })}</Text>
        {remove.error ? <ErrorState error={remove.error} title={t('notDeleted')} /> : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('cancel')}
          </Button>
          <Button color="red" loading={remove.isPending} onClick={() => remove.mutate()}>
            {t('templateEditor.deleteButton')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
