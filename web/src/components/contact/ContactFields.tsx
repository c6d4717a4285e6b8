import { useState } from 'react';
import { Button, Code, Group, Modal, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { ResponseOf } from '../../api/client';
import { useContactFields, useUpdateContact } from '../../api/hooks/contacts';
import { momentWords } from '../../api/dates';
import { ErrorState } from '../States';
import { FieldForm } from './FieldForm';
import { fieldValueWords } from './fieldValueWords';

type Contact = ResponseOf<'/contacts/{id}', 'get'>;

/** A stored value's kind where the project's registry names no type for its key. */
function valueKind(v: unknown): 'list' | 'null' | 'string' | 'number' | 'boolean' | 'object' {
  if (Array.isArray(v)) return 'list';
  if (v === null) return 'null';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  return typeof v === 'boolean' ? 'boolean' : 'object';
}

/** A field's value as people read it (fieldValueWords); an object, which has no such words, as JSON. */
function ValueView({ value, type, field }: { value: unknown; type: string | undefined; field: string }) {
  const { t } = useTranslation('contacts');
  const words = fieldValueWords(value, type, { yes: t('detail.yes'), no: t('detail.no') });
  if (words === null) return <Code data-field-value={field}>{JSON.stringify(value)}</Code>;
  return (
    <Text span size="sm" data-field-value={field}>
      {words}
    </Text>
  );
}

/**
 * The contact's id, dates and custom fields, each field with its type (the project's registry, GET
 * /contacts/fields) and its Edit and Delete; "Add field". A field's change is PATCH /contacts/:id
 * { data: { key: value } } (null deletes it), which changes only that key.
 */
export function ContactFields({ projectId, contactId, contact: c }: { projectId: string; contactId: string; contact: Contact }) {
  const { t } = useTranslation('contacts');
  // The field form: null closed, 'new' to add one, or the key being edited.
  const [editing, setEditing] = useState<string | null>(null);
  const [removingField, setRemovingField] = useState<string | null>(null);
  const patchData = useUpdateContact(projectId, contactId, {
    meta: { success: t('detail.saved') },
    onSuccess: () => {
      setEditing(null);
      setRemovingField(null);
    },
  });
  const types = useContactFields(projectId);
  const typeOfField = (key: string) => types.data?.fields.find((f) => f.field === `data.${key}`)?.type;
  const fields = Object.entries(c.data ?? {});
  const open = (set: (key: string) => void, key: string) => {
    patchData.reset();
    set(key);
  };
  return (
    <Paper withBorder p="md">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4">
          {t('detail.fields')}
        </Title>
        <Button size="xs" variant="light" onClick={() => open(setEditing, 'new')}>
          {t('detail.addField')}
        </Button>
      </Group>
      <Table aria-label={t('detail.fieldsTable')}>
        <Table.Tbody>
          <Table.Tr>
            <Table.Th>{t('detail.id')}</Table.Th>
            <Table.Td>
              <Code>{c.id}</Code>
            </Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>{t('detail.created')}</Table.Th>
            <Table.Td>{momentWords(c.createdAt)}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>{t('detail.updated')}</Table.Th>
            <Table.Td>{momentWords(c.updatedAt)}</Table.Td>
          </Table.Tr>
          {fields.map(([k, v]) => (
            <Table.Tr key={k}>
              <Table.Th>{k}</Table.Th>
              <Table.Td>
                <ValueView value={v} type={typeOfField(k)} field={k} />{' '}
                <Text span size="xs" c="dimmed" title={t('detail.typeHint')}>
                  {t(`fieldType.${typeOfField(k) ?? valueKind(v)}`)}
                </Text>
              </Table.Td>
              <Table.Td w={1}>
                <Group gap={4} wrap="nowrap">
                  <Button size="compact-xs" variant="subtle" aria-label={t('detail.editField', { key: k })} onClick={() => open(setEditing, k)}>
                    {t('edit')}
                  </Button>
                  <Button
                    size="compact-xs"
                    variant="subtle"
                    color="red"
                    aria-label={t('detail.deleteField', { key: k })}
                    onClick={() => open(setRemovingField, k)}
                  >
                    {t('delete')}
                  </Button>
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {!fields.length ? (
        <Text size="sm" c="dimmed">
          {t('detail.noFields')}
        </Text>
      ) : null}
      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing === 'new' ? t('detail.addTitle') : t('detail.editTitle', { key: editing })}
        closeButtonProps={{ 'aria-label': t('close') }}
      >
        {editing !== null ? (
          <FieldForm
            initial={editing === 'new' ? null : { key: editing, value: c.data?.[editing] }}
            onSave={(key, value) => patchData.mutate({ data: { [key]: value } })}
            onClose={() => setEditing(null)}
            saving={patchData.isPending}
            error={patchData.error}
          />
        ) : null}
      </Modal>
      <Modal
        opened={removingField !== null}
        onClose={() => setRemovingField(null)}
        title={t('detail.deleteFieldTitle', { key: removingField })}
        closeButtonProps={{ 'aria-label': t('close') }}
      >
        <Stack>
          <Text>{t('detail.deleteFieldBody')}</Text>
          {patchData.error ? <ErrorState error={patchData.error} /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setRemovingField(null)}>
              {t('cancel')}
            </Button>
            <Button color="red" loading={patchData.isPending} onClick={() => removingField && patchData.mutate({ data: { [removingField]: null } })}>
              {t('detail.deleteFieldConfirm')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Paper>
  );
}
