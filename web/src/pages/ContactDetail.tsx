import { useState, type FormEvent } from 'react';
import { Anchor, Badge, Button, Code, Group, Modal, Paper, Select, Stack, Switch, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { keys } from '../api/queryKeys';
import { useContact, useContactFields } from '../api/hooks/contacts';
import { useCurrentProject } from '../api/project';
import { parseFieldValue, sourceOf, typeOf, VALUE_TYPES, type ValueType } from '../api/contactFields';
import { ContactEmails } from '../components/ContactEmails';
import { ContactTimeline } from '../components/contact/ContactTimeline';
import { EditEmail } from '../components/contact/EditEmail';
import { ErrorState, Loading } from '../components/States';
import { usePageTitle } from '../components/usePageTitle';
import { momentWords } from '../api/dates';

/** A stored value's kind where the project's registry names no type for its key. */
function valueKind(v: unknown): 'list' | 'null' | 'string' | 'number' | 'boolean' | 'object' {
  if (Array.isArray(v)) return 'list';
  if (v === null) return 'null';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  return typeof v === 'boolean' ? 'boolean' : 'object';
}

/** Add or edit one custom field: PATCH /contacts/:id { data: { key: value } } changes only that key. */
function FieldForm({
  initial,
  onSave,
  onClose,
  saving,
  error,
}: {
  initial: { key: string; value: unknown } | null;
  onSave: (key: string, value: unknown) => void;
  onClose: () => void;
  saving: boolean;
  error: unknown;
}) {
  const { t } = useTranslation('contacts');
  const [key, setKey] = useState(initial?.key ?? '');
  const [type, setType] = useState<ValueType>(initial ? typeOf(initial.value) : 'text');
  const [source, setSource] = useState(initial ? sourceOf(initial.value) : '');
  const [problem, setProblem] = useState<string | undefined>();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = parseFieldValue(type, source);
    setProblem(parsed.problem ? t(`valueProblem.${parsed.problem}`, { reason: parsed.reason }) : undefined);
    // A blank name goes to the API too: its sentence is the one the form shows (it stopped here silently).
    if (!parsed.problem) onSave(key.trim(), parsed.value);
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput label={t('detail.fieldName')} value={key} onChange={(e) => setKey(e.currentTarget.value)} disabled={!!initial} required data-autofocus />
        <Select
          label={t('detail.valueType')}
          data={VALUE_TYPES.map((value) => ({ value, label: t(`valueType.${value}`) }))}
          value={type}
          onChange={(v) => v && setType(v as ValueType)}
          allowDeselect={false}
        />
        {type === 'boolean' ? (
          <Select
            label={t('detail.value')}
            data={[
              { value: 'true', label: t('true') },
              { value: 'false', label: t('false') },
            ]}
            value={source === 'true' || source === 'false' ? source : null}
            onChange={(v) => setSource(v ?? '')}
            error={problem}
          />
        ) : type === 'json' ? (
          <Textarea
            label={t('detail.value')}
            value={source}
            onChange={(e) => setSource(e.currentTarget.value)}
            error={problem}
            autosize
            minRows={3}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          />
        ) : (
          <TextInput
            label={t('detail.value')}
            value={source}
            onChange={(e) => setSource(e.currentTarget.value)}
            error={problem}
            inputMode={type === 'number' ? 'decimal' : undefined}
          />
        )}
        {error ? <ErrorState error={error} title={t('notSaved')} /> : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('cancel')}
          </Button>
          <Button type="submit" loading={saving}>
            {t('detail.saveField')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export default function ContactDetail() {
  const { t } = useTranslation('contacts');
  const { projectId } = useCurrentProject();
  const { contactId = '' } = useParams();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  // The field form: null closed, 'new' to add one, or the key being edited.
  const [editing, setEditing] = useState<string | null>(null);
  const [removingField, setRemovingField] = useState<string | null>(null);
  const contact = useContact(projectId, contactId);
  usePageTitle(contact.data ? t('detail.pageTitle', { email: contact.data.email }) : t('detail.pageTitleLoading'));
  const setSubscribed = useMutation({
    meta: { success: (_d, subscribed) => (subscribed ? t('subscribed') : t('unsubscribed')) },
    mutationFn: (subscribed: boolean) => unwrap(api.PATCH('/contacts/{id}', { params: { path: { id: contactId } }, body: { subscribed } })),
    onSuccess: (data) => {
      qc.setQueryData(keys.contacts.one(projectId, contactId), data);
      return qc.invalidateQueries({ queryKey: keys.contacts.all(projectId) });
    },
  });
  const patchData = useMutation({
    meta: { success: t('detail.saved') },
    mutationFn: (data: Record<string, unknown>) => unwrap(api.PATCH('/contacts/{id}', { params: { path: { id: contactId } }, body: { data } })),
    onSuccess: (data) => {
      setEditing(null);
      setRemovingField(null);
      qc.setQueryData(keys.contacts.one(projectId, contactId), data);
      return qc.invalidateQueries({ queryKey: keys.contactFields.all(projectId) });
    },
  });
  const types = useContactFields(projectId);
  const typeOfField = (key: string) => types.data?.fields.find((f) => f.field === `data.${key}`)?.type;
  const remove = useMutation({
    meta: { success: t('detail.deleted') },
    mutationFn: () => unwrap(api.DELETE('/contacts/{id}', { params: { path: { id: contactId } } })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: keys.contacts.all(projectId) });
      navigate(`/p/${projectId}/contacts`);
    },
  });
  const back = (
    <Anchor component={Link} to={`/p/${projectId}/contacts`} size="sm">
      {t('detail.back')}
    </Anchor>
  );
  if (contact.isPending) return <Loading />;
  if (contact.error)
    return (
      <>
        {back}
        <ErrorState error={contact.error} />
      </>
    );
  const c = contact.data;
  const fields = Object.entries(c.data ?? {});
  return (
    <Stack>
      {back}
      <Group justify="space-between">
        <Group gap="xs">
          <Title order={1} size="h2">
            {c.email}
          </Title>
          <EditEmail projectId={projectId} contactId={contactId} email={c.email} />
        </Group>
        <Badge size="lg" color={c.subscribed ? 'green' : 'gray'}>
          {c.subscribed ? t('subscribed') : t('unsubscribed')}
        </Badge>
      </Group>
      <Group justify="space-between">
        {/* PATCH /contacts/:id { subscribed }: the global opt-in (topics keep their own choices). */}
        <Switch
          label={t('subscribed')}
          description={t('receivesMarketing')}
          checked={setSubscribed.isPending ? !!setSubscribed.variables : c.subscribed}
          disabled={setSubscribed.isPending}
          onChange={(e) => setSubscribed.mutate(e.currentTarget.checked)}
        />
        <Button color="red" variant="light" onClick={() => setConfirming(true)}>
          {t('detail.deleteContact')}
        </Button>
      </Group>
      {setSubscribed.error ? <ErrorState error={setSubscribed.error} /> : null}
      <Paper withBorder p="md">
        <Group justify="space-between" mb="sm">
          <Title order={2} size="h4">
            {t('detail.fields')}
          </Title>
          <Button
            size="xs"
            variant="light"
            onClick={() => {
              patchData.reset();
              setEditing('new');
            }}
          >
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
                  <Code>{JSON.stringify(v)}</Code>{' '}
                  <Text span size="xs" c="dimmed" title={t('detail.typeHint')}>
                    {t(`fieldType.${typeOfField(k) ?? valueKind(v)}`)}
                  </Text>
                </Table.Td>
                <Table.Td w={1}>
                  <Group gap={4} wrap="nowrap">
                    <Button
                      size="compact-xs"
                      variant="subtle"
                      aria-label={t('detail.editField', { key: k })}
                      onClick={() => {
                        patchData.reset();
                        setEditing(k);
                      }}
                    >
                      {t('edit')}
                    </Button>
                    <Button
                      size="compact-xs"
                      variant="subtle"
                      color="red"
                      aria-label={t('detail.deleteField', { key: k })}
                      onClick={() => {
                        patchData.reset();
                        setRemovingField(k);
                      }}
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
      </Paper>
      <ContactTimeline projectId={projectId} contactId={contactId} />
      <ContactEmails projectId={projectId} contactId={contactId} />
      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing === 'new' ? t('detail.addTitle') : t('detail.editTitle', { key: editing })}
        closeButtonProps={{ 'aria-label': t('close') }}
      >
        {editing !== null ? (
          <FieldForm
            initial={editing === 'new' ? null : { key: editing, value: c.data?.[editing] }}
            onSave={(key, value) => patchData.mutate({ [key]: value })}
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
            <Button color="red" loading={patchData.isPending} onClick={() => removingField && patchData.mutate({ [removingField]: null })}>
              {t('detail.deleteFieldConfirm')}
            </Button>
          </Group>
        </Stack>
      </Modal>
      <Modal opened={confirming} onClose={() => setConfirming(false)} title={t('detail.deleteTitle')} closeButtonProps={{ 'aria-label': t('close') }}>
        <Stack>
          <Text>{t('detail.deleteBody', { email: c.email })}</Text>
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
    </Stack>
  );
}
