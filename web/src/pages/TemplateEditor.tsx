import { useMemo, useState, type FormEvent } from 'react';
import { Anchor, Button, Group, Modal, Paper, Select, SimpleGrid, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { api, ApiError, fieldError, forProject, hasFieldErrors, ResponseOf, unwrap } from '../api/client';
import { useAppConfig } from '../api/session';
import { useCurrentProject } from '../api/project';
import { parsePreviewData, TEMPLATE_TYPES, templateFieldOf, type TemplateType } from '../api/templates';
import { ErrorState, Loading } from '../components/States';
import { CodeEditor } from '../components/CodeEditor';
import { RenderedEmail } from '../components/EmailPreview';

type Template = ResponseOf<'/templates/{id}', 'get'>;

interface Draft {
  name: string;
  description: string;
  subject: string;
  from: string;
  fromName: string;
  replyTo: string;
  type: TemplateType;
  body: string;
  text: string;
}

const BLANK: Draft = {
  name: '',
  description: '',
  subject: '',
  from: '',
  fromName: '',
  replyTo: '',
  type: 'MARKETING',
  body: '<h1>Hello {{ first name ?? "there" }}</h1>\n<p>Write your message here.</p>',
  text: '',
};

const draftOf = (t: Template): Draft => ({
  name: t.name,
  description: t.description ?? '',
  subject: t.subject,
  from: t.from,
  fromName: t.fromName ?? '',
  replyTo: t.replyTo ?? '',
  type: t.type,
  body: t.body,
  text: t.text ?? '',
});

/** What the API stores: empty optional fields are null (the text part is then generated from the body). */
const payloadOf = (d: Draft) => ({
  name: d.name,
  description: d.description.trim() ? d.description : null,
  subject: d.subject,
  from: d.from,
  fromName: d.fromName.trim() ? d.fromName : null,
  replyTo: d.replyTo.trim() ? d.replyTo : null,
  type: d.type,
  body: d.body,
  text: d.text ? d.text : null,
});

/**
 * The fields of `draft` that differ from the stored template: a PATCH sends only those, so an
 * unchanged sender is not checked again (a domain unverified since would block every other edit).
 */
function changesOf(draft: Draft, template: Template): Partial<ReturnType<typeof payloadOf>> {
  const now = payloadOf(draft);
  const before = payloadOf(draftOf(template));
  return Object.fromEntries(Object.entries(now).filter(([k, v]) => v !== before[k as keyof typeof before]));
}

/**
 * The server renders the preview (POST /templates/preview, the renderer sends use) as the sources change.
 * The HTML goes into a sandboxed iframe: no scripts, an opaque origin, no navigation of the dashboard.
 */
function usePreview(projectId: string, draft: Draft, dataSource: string, contactId: string | null) {
  const parsed = useMemo(() => parsePreviewData(dataSource), [dataSource]);
  const input = { subject: draft.subject, body: draft.body, text: draft.text || null, data: parsed.data ?? {}, ...(contactId ? { contactId } : {}) };
  const [debounced] = useDebouncedValue(input, 400);
  const preview = useQuery({
    queryKey: ['template-preview', projectId, debounced],
    placeholderData: keepPreviousData,
    enabled: !parsed.problem,
    queryFn: () => unwrap(api.POST('/templates/preview', { body: debounced, headers: forProject(projectId) })),
  });
  return { preview, problem: parsed.problem };
}

/**
 * "Send test": POST /v1/send of the saved template to one address, with the preview data for this
 * send only (`{ value, persistent: false }`: not stored on the recipient's contact).
 */
function SendTest({ projectId, template, data, dirty }: { projectId: string; template: Template; data: Record<string, unknown> | undefined; dirty: boolean }) {
  const config = useAppConfig();
  const [opened, setOpened] = useState(false);
  const [to, setTo] = useState('');
  const send = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/v1/send', {
          body: { to, template: template.id, data: Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [k, { value: v, persistent: false }])) as never },
          headers: forProject(projectId),
        }),
      ),
  });
  const close = () => {
    setOpened(false);
    send.reset();
  };
  return (
    <>
      <Button variant="default" onClick={() => setOpened(true)}>
        Send test
      </Button>
      <Modal opened={opened} onClose={close} title="Send a test email">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            send.mutate();
          }}
          noValidate
        >
          <Stack>
            <Text size="sm">
              Sends the saved template{dirty ? ' (not your unsaved changes)' : ''} with the preview data, which is not stored on the recipient. The recipient becomes a contact of the project, as with every send.
            </Text>
            <TextInput label="Send to" type="email" required value={to} onChange={(e) => setTo(e.currentTarget.value)} error={fieldError(send.error, 'to')} data-autofocus />
            {send.error && !hasFieldErrors(send.error) ? <ErrorState error={send.error} title="Not sent" /> : null}
            {send.data ? (
              <Text size="sm" c="green" role="status">
                Queued for {to}.{' '}
                {config.data?.email.inboxUrl ? (
                  <Anchor href={config.data.email.inboxUrl} target="_blank" rel="noreferrer">
                    Open the development inbox
                  </Anchor>
                ) : null}
              </Text>
            ) : null}
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                Close
              </Button>
              <Button type="submit" loading={send.isPending}>
                Send
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}

/** GET /templates/:id/usage: the workflow steps that send it (they keep it from being deleted). */
function Usage({ projectId, templateId }: { projectId: string; templateId: string }) {
  const usage = useQuery({
    queryKey: ['template-usage', projectId, templateId],
    queryFn: () => unwrap(api.GET('/templates/{id}/usage', { params: { path: { id: templateId } }, headers: forProject(projectId) })),
  });
  if (usage.isPending || usage.error) return null;
  const { workflows } = usage.data;
  return (
    <Text size="sm" c="dimmed" data-testid="template-usage">
      {workflows.length ? (
        <>
          Sent by {workflows.length} workflow step{workflows.length === 1 ? '' : 's'}:{' '}
          {workflows.map((w, i) => (
            <span key={`${w.id}-${w.stepId}`}>
              {i ? ', ' : ''}
              {w.name}
            </span>
          ))}
        </>
      ) : (
        'Not used by any workflow.'
      )}
    </Text>
  );
}

/** "Preview as contact": a server-side search of the project's contacts (GET /contacts?search=). */
function ContactPicker({ projectId, value, onChange }: { projectId: string; value: string | null; onChange: (id: string | null) => void }) {
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 300);
  const [chosen, setChosen] = useState<{ value: string; label: string } | null>(null);
  const found = useQuery({
    queryKey: ['contacts', projectId, 'picker', debounced],
    placeholderData: keepPreviousData,
    queryFn: () => unwrap(api.GET('/contacts', { params: { query: { limit: 10, search: debounced || undefined, sort: 'email', dir: 'asc' } }, headers: forProject(projectId) })),
  });
  const options = (found.data?.data ?? []).map((c) => ({ value: c.id, label: c.email }));
  if (chosen && !options.some((o) => o.value === chosen.value)) options.unshift(chosen);
  return (
    <Select
      label="Preview as contact"
      description="Renders with the contact's fields, email and subscription links; preview data overrides them"
      placeholder="No contact: preview data only"
      searchable
      clearable
      data={options}
      value={value}
      searchValue={search}
      onSearchChange={setSearch}
      // The server already searched: show its answers as they are.
      filter={({ options: all }) => all}
      nothingFoundMessage={found.isFetching ? 'Searching…' : 'No contact matches'}
      onChange={(id, option) => {
        setChosen(option ?? null);
        onChange(id);
      }}
    />
  );
}

function Editor({ projectId, template }: { projectId: string; template: Template | null }) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [draft, setDraft] = useState<Draft>(() => (template ? draftOf(template) : BLANK));
  const [dataSource, setDataSource] = useState('{\n  "first name": "Ada"\n}');
  const [deleting, setDeleting] = useState(false);
  const [previewContact, setPreviewContact] = useState<string | null>(null);
  const set = (key: keyof Draft) => (e: { currentTarget: { value: string } }) => {
    const value = e.currentTarget.value;
    setDraft((d) => ({ ...d, [key]: value }));
  };
  const { preview, problem } = usePreview(projectId, draft, dataSource, previewContact);

  const save = useMutation({
    mutationFn: () =>
      template
        ? unwrap(api.PATCH('/templates/{id}', { params: { path: { id: template.id } }, body: changesOf(draft, template), headers: forProject(projectId) }))
        : unwrap(api.POST('/templates', { body: payloadOf(draft), headers: forProject(projectId) })),
    onSuccess: async (saved) => {
      await qc.invalidateQueries({ queryKey: ['templates', projectId] });
      qc.setQueryData(['template', projectId, saved.id], saved);
      if (!template) {
        await qc.invalidateQueries({ queryKey: ['setup-state', projectId] });
        void navigate(`/p/${projectId}/templates/${saved.id}`, { replace: true });
      }
    },
  });
  const duplicate = useMutation({
    mutationFn: () => unwrap(api.POST('/templates/{id}/duplicate', { params: { path: { id: template!.id } }, headers: forProject(projectId) })),
    onSuccess: async (copy) => {
      await qc.invalidateQueries({ queryKey: ['templates', projectId] });
      void navigate(`/p/${projectId}/templates/${copy.id}`);
    },
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/templates/{id}', { params: { path: { id: template!.id } }, headers: forProject(projectId) })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['templates', projectId] });
      void navigate(`/p/${projectId}/templates`, { replace: true });
    },
  });

  const dirty = !template || Object.keys(changesOf(draft, template)).length > 0;
  // A field's message: the save's (flat `{ error }` naming its field) or the preview's 422 envelope.
  const saveProblem = templateFieldOf(save.error);
  const previewFields = preview.error instanceof ApiError ? preview.error.fields : {};
  const errorOf = (field: keyof Draft) => (saveProblem?.field === field ? saveProblem.message : undefined) ?? previewFields[field];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };

  return (
    <Stack>
      <Group justify="space-between">
        <div>
          <Anchor component={Link} to={`/p/${projectId}/templates`} size="sm">
            ← Templates
          </Anchor>
          <Title order={1} size="h2">
            {template ? template.name : 'New template'}
          </Title>
          {template ? <Usage projectId={projectId} templateId={template.id} /> : null}
        </div>
        {template ? (
          <Group gap="xs">
            <SendTest projectId={projectId} template={template} data={parsePreviewData(dataSource).data} dirty={dirty} />
            <Button variant="default" onClick={() => duplicate.mutate()} loading={duplicate.isPending}>
              Duplicate
            </Button>
            <Button color="red" variant="light" onClick={() => setDeleting(true)}>
              Delete
            </Button>
          </Group>
        ) : null}
      </Group>
      {duplicate.error ? <ErrorState error={duplicate.error} title="Not duplicated" /> : null}
      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
        <Paper withBorder p="md">
          <form onSubmit={submit} noValidate>
            <Stack gap="sm">
              <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
                <TextInput label="Name" required value={draft.name} onChange={set('name')} error={errorOf('name')} />
                <Select
                  label="Type"
                  data={TEMPLATE_TYPES.map((t) => ({ value: t, label: t.charAt(0) + t.slice(1).toLowerCase() }))}
                  value={draft.type}
                  onChange={(v) => v && setDraft((d) => ({ ...d, type: v as TemplateType }))}
                  allowDeselect={false}
                  error={errorOf('type')}
                />
              </SimpleGrid>
              <TextInput label="Description" description="An internal note, never sent" value={draft.description} onChange={set('description')} error={errorOf('description')} />
              <TextInput label="Subject" required value={draft.subject} onChange={set('subject')} error={errorOf('subject')} />
              <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
                <TextInput label="From" type="email" required placeholder="hello@example.com" value={draft.from} onChange={set('from')} error={errorOf('from')} />
                <TextInput label="From name" value={draft.fromName} onChange={set('fromName')} error={errorOf('fromName')} />
                <TextInput label="Reply-to" type="email" value={draft.replyTo} onChange={set('replyTo')} error={errorOf('replyTo')} />
              </SimpleGrid>
              <CodeEditor
                label="Body"
                description={'HTML with Liquid: {{ email }}, {{ first name ?? "there" }}, {% if plan == "pro" %}…{% endif %}; outputs are HTML-escaped'}
                required
                value={draft.body}
                onChange={(body) => setDraft((d) => ({ ...d, body }))}
                error={errorOf('body')}
              />
              <Textarea
                label="Plain text"
                description="Optional: the text/plain part's own Liquid source; left empty, it is generated from the HTML"
                value={draft.text}
                onChange={set('text')}
                error={errorOf('text')}
                autosize
                minRows={2}
                maxRows={12}
                spellCheck={false}
                styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } }}
              />
              {save.error && !saveProblem ? <ErrorState error={save.error} title="Not saved" /> : null}
              <Group justify="flex-end">
                {save.isSuccess && template && !dirty ? (
                  <Text size="sm" c="green" role="status">
                    Saved.
                  </Text>
                ) : null}
                <Button type="submit" loading={save.isPending} disabled={!dirty}>
                  {template ? 'Save' : 'Create template'}
                </Button>
              </Group>
            </Stack>
          </form>
        </Paper>
        <Paper withBorder p="md">
          <Stack gap="sm">
            <Group justify="space-between">
              <Title order={2} size="h4">
                Preview
              </Title>
              {preview.isFetching ? (
                <Text size="xs" c="dimmed" role="status">
                  Rendering…
                </Text>
              ) : null}
            </Group>
            <ContactPicker projectId={projectId} value={previewContact} onChange={setPreviewContact} />
            <Textarea
              label="Preview data (JSON)"
              description="Variables the preview renders with, as a contact's fields would be"
              value={dataSource}
              onChange={(e) => setDataSource(e.currentTarget.value)}
              error={problem}
              autosize
              minRows={2}
              maxRows={8}
              spellCheck={false}
              styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } }}
            />
            {preview.error ? <ErrorState error={preview.error} title="The preview did not render" /> : null}
            {preview.data ? (
              <RenderedEmail rendered={preview.data} height={480} />
            ) : preview.isPending && !problem ? (
              <Loading label="Rendering…" />
            ) : null}
          </Stack>
        </Paper>
      </SimpleGrid>
      <Modal opened={deleting} onClose={() => setDeleting(false)} title="Delete this template?">
        <Stack>
          <Text>
            {template?.name} is deleted for good. Emails already sent from it keep their content; campaigns that copied it are not changed. Workflow steps that use it must be changed first.
          </Text>
          {remove.error ? <ErrorState error={remove.error} title="Not deleted" /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setDeleting(false)}>
              Cancel
            </Button>
            <Button color="red" loading={remove.isPending} onClick={() => remove.mutate()}>
              Delete template
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}

/** `/templates/new` and `/templates/:templateId`: the form keeps its own draft, seeded once from the loaded template. */
export default function TemplateEditor() {
  const { projectId } = useCurrentProject();
  const { templateId } = useParams();
  const template = useQuery({
    queryKey: ['template', projectId, templateId],
    enabled: !!templateId,
    queryFn: () => unwrap(api.GET('/templates/{id}', { params: { path: { id: templateId! } }, headers: forProject(projectId) })),
  });
  if (!templateId) return <Editor key="new" projectId={projectId} template={null} />;
  if (template.isPending) return <Loading />;
  if (template.error) return <ErrorState error={template.error} title="Template not found" />;
  return <Editor key={template.data.id} projectId={projectId} template={template.data} />;
}
