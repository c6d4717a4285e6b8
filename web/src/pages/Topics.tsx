import { useState, type FormEvent } from 'react';
import { Badge, Button, Code, Group, Modal, Paper, Stack, Switch, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, fieldError, hasFieldErrors, ResponseOf, unwrap } from '../api/client';
import { useCurrentProject } from '../api/project';
import { ErrorState } from '../components/States';
import { ListPage, ListTable } from '../components/ListPage';
import { ConfirmBody } from '../components/ConfirmDialog';

type Topic = ResponseOf<'/topics', 'get'>['data'][number];

/** The fields a topic's create and edit forms share (the slug is set once, at creation). */
interface TopicFields {
  name: string;
  description: string;
  defaultSubscribed: boolean;
  public: boolean;
}

const fieldsOf = (t?: Topic): TopicFields => ({ name: t?.name ?? '', description: t?.description ?? '', defaultSubscribed: t?.defaultSubscribed ?? false, public: t?.public ?? true });
const bodyOf = (f: TopicFields) => ({ name: f.name, description: f.description.trim() || null, defaultSubscribed: f.defaultSubscribed, public: f.public });

/** Name, description and the two switches, with the API's field errors on their inputs. */
function TopicInputs({ value, onChange, error, autoFocus }: { value: TopicFields; onChange: (f: TopicFields) => void; error: unknown; autoFocus?: boolean }) {
  return (
    <>
      <TextInput label="Name" required value={value.name} onChange={(e) => onChange({ ...value, name: e.currentTarget.value })} error={fieldError(error, 'name')} data-autofocus={autoFocus || undefined} />
      <Textarea
        label="Description"
        description="Shown on the preference center"
        autosize
        minRows={2}
        value={value.description}
        onChange={(e) => onChange({ ...value, description: e.currentTarget.value })}
        error={fieldError(error, 'description')}
      />
      <Switch
        label="Subscribed by default"
        description="The state of a contact who never chose"
        checked={value.defaultSubscribed}
        onChange={(e) => onChange({ ...value, defaultSubscribed: e.currentTarget.checked })}
      />
      <Switch label="Listed on the preference center" checked={value.public} onChange={(e) => onChange({ ...value, public: e.currentTarget.checked })} />
    </>
  );
}

function EditTopic({ projectId, topic, onClose }: { projectId: string; topic: Topic; onClose: () => void }) {
  const qc = useQueryClient();
  const [fields, setFields] = useState(fieldsOf(topic));
  const save = useMutation({
    meta: { success: 'Topic saved' },
    mutationFn: () => unwrap(api.PATCH('/topics/{id}', { params: { path: { id: topic.id } }, body: bodyOf(fields) })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['topics', projectId] });
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
        {save.error && !hasFieldErrors(save.error) ? <ErrorState error={save.error} title="Not saved" /> : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={save.isPending}>
            Save topic
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** Asks first; a topic an unfinished campaign or a workflow step names is refused (409), and the API's message says which. */
function DeleteTopic({ projectId, topic, onClose }: { projectId: string; topic: Topic; onClose: () => void }) {
  const qc = useQueryClient();
  const remove = useMutation({
    meta: { success: 'Topic deleted' },
    mutationFn: () => unwrap(api.DELETE('/topics/{id}', { params: { path: { id: topic.id } } })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['topics', projectId] });
      onClose();
    },
  });
  return (
    <ConfirmBody
      message={<>Every contact's choice of “{topic.name}” is deleted with it. Mail already sent as this topic keeps working; its unsubscribe links then leave everything.</>}
      error={remove.error}
      errorTitle="Not deleted"
      confirmLabel="Delete topic"
      confirmColor="red"
      loading={remove.isPending}
      onConfirm={() => remove.mutate()}
      onCancel={onClose}
    />
  );
}

/** Topics (docs/api.md "Topics"): what the project's marketing mail is about, each with its own opt-in under the global one. */
export default function Topics() {
  const { projectId } = useCurrentProject();
  const qc = useQueryClient();
  const [fields, setFields] = useState(fieldsOf());
  const [slug, setSlug] = useState('');
  const [editing, setEditing] = useState<Topic | null>(null);
  const [deleting, setDeleting] = useState<Topic | null>(null);
  const list = useQuery({ queryKey: ['topics', projectId], queryFn: () => unwrap(api.GET('/topics')) });
  const create = useMutation({
    meta: { success: 'Topic created' },
    mutationFn: () => unwrap(api.POST('/topics', { body: { ...bodyOf(fields), slug: slug.trim() || undefined } })),
    onSuccess: () => {
      setFields(fieldsOf());
      setSlug('');
      return qc.invalidateQueries({ queryKey: ['topics', projectId] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <ListPage
      title="Topics"
      description="What your marketing mail is about. Contacts choose topics on the preference center; a campaign or a workflow email sent as a topic goes only to its subscribers, and its unsubscribe link leaves that topic only."
    >
      <Paper withBorder p="md" component="section" aria-label="New topic">
        <form onSubmit={submit} noValidate>
          <Stack gap="sm">
            <Title order={2} size="h5">
              New topic
            </Title>
            <TopicInputs value={fields} onChange={setFields} error={create.error} />
            <TextInput
              label="Slug"
              description="How filters (topic.<slug>) and API requests name it; fixed once created. Empty: made from the name."
              value={slug}
              onChange={(e) => setSlug(e.currentTarget.value)}
              error={fieldError(create.error, 'slug')}
            />
            {create.error && !hasFieldErrors(create.error) ? <ErrorState error={create.error} title="Not created" /> : null}
            <Group justify="flex-end">
              <Button type="submit" loading={create.isPending}>
                Create topic
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
      <ListTable
        query={list}
        label="Topics"
        miw={680}
        head={
          <>
            <Table.Th>Name</Table.Th>
            <Table.Th>Slug</Table.Th>
            <Table.Th>Default</Table.Th>
            <Table.Th>Preference center</Table.Th>
            <Table.Th />
          </>
        }
        row={(t) => (
          <Table.Tr key={t.id}>
            <Table.Td>
              <Text fw={500}>{t.name}</Text>
              {t.description ? (
                <Text size="xs" c="dimmed" lineClamp={2}>
                  {t.description}
                </Text>
              ) : null}
            </Table.Td>
            <Table.Td>
              <Code>{t.slug}</Code>
            </Table.Td>
            <Table.Td>
              <Badge variant="light" color={t.defaultSubscribed ? 'green' : 'gray'}>
                {t.defaultSubscribed ? 'Subscribed' : 'Not subscribed'}
              </Badge>
            </Table.Td>
            <Table.Td>{t.public ? 'Listed' : 'Hidden'}</Table.Td>
            <Table.Td>
              <Group gap="xs" justify="flex-end" wrap="nowrap">
                <Button size="xs" variant="default" onClick={() => setEditing(t)} aria-label={`Edit ${t.name}`}>
                  Edit
                </Button>
                <Button size="xs" color="red" variant="light" onClick={() => setDeleting(t)} aria-label={`Delete ${t.name}`}>
                  Delete
                </Button>
              </Group>
            </Table.Td>
          </Table.Tr>
        )}
        empty="No topics yet: without topics, a contact's one choice is the global subscription."
      />
      <Modal opened={editing !== null} onClose={() => setEditing(null)} title={`Edit topic ${editing?.name ?? ''}`}>
        {editing ? <EditTopic projectId={projectId} topic={editing} onClose={() => setEditing(null)} /> : null}
      </Modal>
      <Modal opened={deleting !== null} onClose={() => setDeleting(null)} title="Delete this topic?">
        {deleting ? <DeleteTopic projectId={projectId} topic={deleting} onClose={() => setDeleting(null)} /> : null}
      </Modal>
    </ListPage>
  );
}
