import { useState } from 'react';
import { Anchor, Button, Group, Modal, Table, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import { useCurrentProject } from '../api/project';
import { ListPage, ListTable } from '../components/ListPage';
import { ConfirmBody } from '../components/ConfirmDialog';
import { CopyEmbed, type SignupForm } from './FormEditor';

function DeleteForm({ projectId, form, onClose }: { projectId: string; form: SignupForm; onClose: () => void }) {
  const qc = useQueryClient();
  const remove = useMutation({
    meta: { success: 'Form deleted' },
    mutationFn: () => unwrap(api.DELETE('/forms/{id}', { params: { path: { id: form.id } } })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['forms', projectId] });
      onClose();
    },
  });
  return (
    <ConfirmBody
      message={<>The hosted page and every embedded copy of “{form.name}” stop taking signups. Contacts who signed up stay.</>}
      error={remove.error}
      errorTitle="Not deleted"
      confirmLabel="Delete form"
      confirmColor="red"
      loading={remove.isPending}
      onConfirm={() => remove.mutate()}
      onCancel={onClose}
    />
  );
}

/** Signup forms (docs/forms.md): a hosted page each, and a snippet to embed on any site. */
export default function Forms() {
  const { projectId } = useCurrentProject();
  const [deleting, setDeleting] = useState<SignupForm | null>(null);
  const list = useQuery({ queryKey: ['forms', projectId], queryFn: () => unwrap(api.GET('/forms')) });
  return (
    <ListPage
      title="Forms"
      description="Signup forms: each has a hosted page and an embed code, a plain HTML form that works on any site. A signup creates or updates the contact, subscribed (or waiting for its confirmation under double opt-in)."
      action={
        <Button component={Link} to={`/p/${projectId}/forms/new`}>
          New form
        </Button>
      }
    >
      <ListTable
        query={list}
        label="Forms"
        miw={680}
        head={
          <>
            <Table.Th>Name</Table.Th>
            <Table.Th>Fields</Table.Th>
            <Table.Th>Hosted page</Table.Th>
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
                Open
              </Anchor>
            </Table.Td>
            <Table.Td>
              <Group gap="xs" justify="flex-end" wrap="nowrap">
                <CopyEmbed form={f} />
                <Button size="xs" color="red" variant="light" onClick={() => setDeleting(f)} aria-label={`Delete ${f.name}`}>
                  Delete
                </Button>
              </Group>
            </Table.Td>
          </Table.Tr>
        )}
        empty="No forms yet: create one to collect signups on a hosted page or your own site."
      />
      <Modal opened={deleting !== null} onClose={() => setDeleting(null)} title="Delete this form?">
        {deleting ? <DeleteForm projectId={projectId} form={deleting} onClose={() => setDeleting(null)} /> : null}
      </Modal>
    </ListPage>
  );
}
