import { useState, type FormEvent } from 'react';
import { Badge, Button, Code, Group, Modal, Paper, Stack, Switch, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, fieldError, hasFieldErrors, ResponseOf, unwrap } from '../api/client';
import { keys } from '../api/queryKeys';
import { useTopics } from '../api/hooks/topics';
import { useCurrentProject } from '../api/project';
import { ErrorState } from '../components/States';
import { ListPage, ListTable } from '../components/ListPage';
import { ConfirmBody } from '../components/dialogs/ConfirmDialog';
import { useTranslation } from 'react-i18next';

type Topic = ResponseOf<'/topics', 'get'>['data'][number];

/** The fields a topic's create and edit forms share (the slug is set once, at creation). */
interface TopicFields {
  name: string;
  description: string;
  defaultSubscribed: boolean;
  public: boolean;
}

const fieldsOf = (t?: Topic): TopicFields => ({
  name: t?.name ?? '',
  description: t?.description ?? '',
  defaultSubscribed: t?.defaultSubscribed ?? false,
  public: t?.public ?? true,
});
const bodyOf = (f: TopicFields) => ({ name: f.name, description: f.description.trim() || null, defaultSubscribed: f.defaultSubscribed, public: f.public });

/** Name, description and the two switches, with the API's field errors on their inputs. */
function TopicInputs({ value, onChange, error, autoFocus }: { value: TopicFields; onChange: (f: TopicFields) => void; error: unknown; autoFocus?: boolean }) {
  const { t } = useTranslation('mail');
  return (
    <>
      <TextInput
        label={t('topics.name')}
        required
        value={value.name}
        onChange={(e) => onChange({ ...value, name: e.currentTarget.value })}
        error={fieldError(error, 'name')}
        data-autofocus={autoFocus || undefined}
      />
      <Textarea
        label={t('topics.descriptionLabel')}
        description={t('topics.descriptionHint')}
        autosize
        minRows={2}
        value={value.description}
        onChange={(e) => onChange({ ...value, description: e.currentTarget.value })}
        error={fieldError(error, 'description')}
      />
      <Switch
        label={t('topics.defaultSubscribed')}
        description={t('topics.defaultHint')}
        checked={value.defaultSubscribed}
        onChange={(e) => onChange({ ...value, defaultSubscribed: e.currentTarget.checked })}
      />
      <Switch label={t('topics.listedLabel')} checked={value.public} onChange={(e) => onChange({ ...value, public: e.currentTarget.checked })} />
    </>
  );
}

function EditTopic({ projectId, topic, onClose }: { projectId: string; topic: Topic; onClose: () => void }) {
  const { t } = useTranslation(['mail', 'common']);
  const qc = useQueryClient();
  const [fields, setFields] = useState(fieldsOf(topic));
  const save = useMutation({
    meta: { success: t('topics.saved') },
    mutationFn: () => unwrap(api.PATCH('/topics/{id}', { params: { path: { id: topic.id } }, body: bodyOf(fields) })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: keys.topics.all(projectId) });
      onClose();
    },
  });
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
      noValidate
    >
      <Stack>
        <TopicInputs value={fields} onChange={setFields} error={save.error} autoFocus />
        {save.error && !hasFieldErrors(save.error) ? <ErrorState error={save.error} title={t('topics.notSaved')} /> : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('common:cancel')}
          </Button>
          <Button type="submit" loading={save.isPending}>
            {t('topics.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** Asks first; a topic an unfinished campaign or a workflow step names is refused (409), and the API's message says which. */
function DeleteTopic({ projectId, topic, onClose }: { projectId: string; topic: Topic; onClose: () => void }) {
  const { t } = useTranslation('mail');
  const qc = useQueryClient();
  const remove = useMutation({
    meta: { success: t('topics.deleted') },
    mutationFn: () => unwrap(api.DELETE('/topics/{id}', { params: { path: { id: topic.id } } })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: keys.topics.all(projectId) });
      onClose();
    },
  });
  return (
    <ConfirmBody
      message={t('topics.deleteMessage', { name: topic.name })}
      error={remove.error}
      errorTitle={t('topics.notDeleted')}
      confirmLabel={t('topics.deleteTopic')}
      confirmColor="red"
      loading={remove.isPending}
      onConfirm={() => remove.mutate()}
      onCancel={onClose}
    />
  );
}

/** Topics (docs/api.md "Topics"): what the project's marketing mail is about, each with its own opt-in under the global one. */
export default function Topics() {
  const { t } = useTranslation('mail');
  const { projectId } = useCurrentProject();
  const qc = useQueryClient();
  const [fields, setFields] = useState(fieldsOf());
  const [slug, setSlug] = useState('');
  const [editing, setEditing] = useState<Topic | null>(null);
  const [deleting, setDeleting] = useState<Topic | null>(null);
  const list = useTopics(projectId);
  const create = useMutation({
    meta: { success: t('topics.created') },
    mutationFn: () => unwrap(api.POST('/topics', { body: { ...bodyOf(fields), slug: slug.trim() || undefined } })),
    onSuccess: () => {
      setFields(fieldsOf());
      setSlug('');
      return qc.invalidateQueries({ queryKey: keys.topics.all(projectId) });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <ListPage title={t('topics.title')} description={t('topics.description')}>
      <Paper withBorder p="md" component="section" aria-label={t('topics.newTopic')}>
        <form onSubmit={submit} noValidate>
          <Stack gap="sm">
            <Title order={2} size="h5">
              {t('topics.newTopic')}
            </Title>
            <TopicInputs value={fields} onChange={setFields} error={create.error} />
            <TextInput
              label={t('topics.slug')}
              description={t('topics.slugHint', { example: 'topic.<slug>' })}
              value={slug}
              onChange={(e) => setSlug(e.currentTarget.value)}
              error={fieldError(create.error, 'slug')}
            />
            {create.error && !hasFieldErrors(create.error) ? <ErrorState error={create.error} title={t('topics.notCreated')} /> : null}
            <Group justify="flex-end">
              <Button type="submit" loading={create.isPending}>
                {t('topics.create')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
      <ListTable
        query={list}
        label={t('topics.title')}
        miw={680}
        head={
          <>
            <Table.Th>{t('topics.name')}</Table.Th>
            <Table.Th>{t('topics.slug')}</Table.Th>
            <Table.Th>{t('topics.defaultColumn')}</Table.Th>
            <Table.Th>{t('topics.center')}</Table.Th>
            <Table.Th />
          </>
        }
        row={(topic) => (
          <Table.Tr key={topic.id}>
            <Table.Td>
              <Text fw={500}>{topic.name}</Text>
              {topic.description ? (
                <Text size="xs" c="dimmed" lineClamp={2}>
                  {topic.description}
                </Text>
              ) : null}
            </Table.Td>
            <Table.Td>
              <Code>{topic.slug}</Code>
            </Table.Td>
            <Table.Td>
              <Badge variant="light" color={topic.defaultSubscribed ? 'green' : 'gray'}>
                {topic.defaultSubscribed ? t('topics.subscribed') : t('topics.notSubscribed')}
              </Badge>
            </Table.Td>
            <Table.Td>{topic.public ? t('topics.listed') : t('topics.hidden')}</Table.Td>
            <Table.Td>
              <Group gap="xs" justify="flex-end" wrap="nowrap">
                <Button size="xs" variant="default" onClick={() => setEditing(topic)} aria-label={t('topics.editNamed', { name: topic.name })}>
                  {t('topics.edit')}
                </Button>
                <Button size="xs" color="red" variant="light" onClick={() => setDeleting(topic)} aria-label={t('topics.deleteNamed', { name: topic.name })}>
                  {t('topics.delete')}
                </Button>
              </Group>
            </Table.Td>
          </Table.Tr>
        )}
        empty={t('topics.empty')}
      />
      <Modal opened={editing !== null} onClose={() => setEditing(null)} title={t('topics.editTitle', { name: editing?.name ?? '' })}>
        {editing ? <EditTopic projectId={projectId} topic={editing} onClose={() => setEditing(null)} /> : null}
      </Modal>
      <Modal opened={deleting !== null} onClose={() => setDeleting(null)} title={t('topics.deleteTitle')}>
        {deleting ? <DeleteTopic projectId={projectId} topic={deleting} onClose={() => setDeleting(null)} /> : null}
      </Modal>
    </ListPage>
  );
}
