import { useState } from 'react';
import { Anchor, Button, Group, Modal, Table, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import { keys } from '../api/queryKeys';
import { useForms } from '../api/hooks/forms';
import { useCurrentProject } from '../api/project';
import { ListPage, ListTable } from '../components/ListPage';
import { ConfirmBody } from '../components/dialogs/ConfirmDialog';
import { CopyEmbed, type SignupForm } from './FormEditor';
import { useTranslation } from 'react-i18next';

function DeleteForm({ projectId, form, onClose }: { projectId: string; form: SignupForm; onClose: () => void }) {
  const { t } = useTranslation('editor');
  const qc = useQueryClient();
  const remove = useMutation({
    meta: { success: t('forms.deleted') },
    mutationFn: () => unwrap(api.DELETE('/forms/{id}', { params: { path: { id: form.id } } })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: keys.forms.all(projectId) });
      onClose();
    },
  });
  return (
    <ConfirmBody
      message={t('forms.deleteText', { name: form.name })}
      error={remove.error}
      errorTitle={t('notDeleted')}
      confirmLabel={t('forms.deleteButton')}
      confirmColor="red"
      loading={remove.isPending}
      onConfirm={() => remove.mutate()}
      onCancel={onClose}
    />
  );
}

/** Signup forms (docs/forms.md): a hosted page each, and a snippet to embed on any site. */
export default function Forms() {
  const { t } = useTranslation('editor');
  const { projectId } = useCurrentProject();
  const [deleting, setDeleting] = useState<SignupForm | null>(null);
  const list = useForms(projectId);
  return (
    <ListPage
      title={t('forms.title')}
      description={t('forms.description')}
      action={
        <Button component={Link} to={`/p/${projectId}/forms/new`}>
          {t('forms.new')}
        </Button>
      }
    >
      <ListTable
        query={list}
        label={t('forms.title')}
        miw={680}
        head={
          <>
            <Table.Th>{t('forms.name')}</Table.Th>
            <Table.Th>{t('forms.fields')}</Table.Th>
            <Table.Th>{t('forms.hostedPage')}</Table.Th>
            <Table.Th />
          </>
        }
        row={(f) => (
          <Table.Tr key={f.id}>
            <Table.Td>
              <Anchor component={Link} to={`/p/${projectId}/forms/${f.id}`} fw={500}>
                {f.name}
              </Anchor>
            </Table.Td>
            <Table.Td>
              <Text size="sm">{['email', ...f.fields.map((x) => x.key)].join(', ')}</Text>
            </Table.Td>
            <Table.Td>
              <Anchor href={f.publicUrl} target="_blank" rel="noreferrer" size="sm">
                {t('forms.open')}
              </Anchor>
            </Table.Td>
            <Table.Td>
              <Group gap="xs" justify="flex-end" wrap="nowrap">
                <CopyEmbed form={f} />
                <Button size="xs" color="red" variant="light" onClick={() => setDeleting(f)} aria-label={t('forms.deleteNamed', { name: f.name })}>
                  {t('forms.delete')}
                </Button>
              </Group>
            </Table.Td>
          </Table.Tr>
        )}
        empty={t('forms.none')}
      />
      <Modal opened={deleting !== null} onClose={() => setDeleting(null)} title={t('forms.deleteHeading')}>
        {deleting ? <DeleteForm projectId={projectId} form={deleting} onClose={() => setDeleting(null)} /> : null}
      </Modal>
    </ListPage>
  );
}
