import { useEffect, useState, type FormEvent } from 'react';
import { Anchor, Button, CopyButton, Grid, Group, MultiSelect, Paper, Stack, Switch, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { api, fieldError, hasFieldErrors, type ResponseOf, unwrap } from '../api/client';
import { useCurrentProject } from '../api/project';
import { ErrorState, Loading } from '../components/States';
import { SaveButton } from '../components/SaveButton';
import { FieldsEditor } from '../components/forms/FieldsEditor';
import { FormPreview } from '../components/forms/FormPreview';
import type { FormField } from '../components/forms/formMarkup';

export type SignupForm = ResponseOf<'/forms', 'get'>['data'][number];

interface Draft {
  name: string;
  fields: FormField[];
  topics: string[];
  doubleOptIn: boolean;
  successMessage: string;
  redirectUrl: string;
}

const draftOf = (f?: SignupForm): Draft => ({
  name: f?.name ?? '',
  fields: f?.fields ?? [],
  topics: f?.topics ?? [],
  doubleOptIn: f?.doubleOptIn === true,
  successMessage: f?.successMessage ?? '',
  redirectUrl: f?.redirectUrl ?? '',
});

/** Off leaves it to the project's settings (null), which may still ask for confirmation. */
const bodyOf = (d: Draft) => ({
  name: d.name,
  fields: d.fields.map((f) => ({ ...f, options: f.type === 'select' ? (f.options ?? []).filter(Boolean) : undefined })),
  topics: d.topics,
  doubleOptIn: d.doubleOptIn ? true : null,
  successMessage: d.successMessage.trim() || null,
  redirectUrl: d.redirectUrl.trim() || null,
});

/** "Copy embed code": the snippet for another site (a plain HTML form posting to the hosted page). */
export function CopyEmbed({ form }: { form: SignupForm }) {
  return (
    <CopyButton value={form.embedHtml}>
      {({ copied, copy }) => (
        <Button size="xs" variant="light" color={copied ? 'teal' : 'blue'} onClick={copy}>
          {copied ? 'Copied' : 'Copy embed code'}
        </Button>
      )}
    </CopyButton>
  );
}

/** A signup form's settings (docs/forms.md), beside a live preview of its hosted page. */
export default function FormEditor() {
  const { projectId } = useCurrentProject();
  const { formId } = useParams();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const form = useQuery({
    queryKey: ['forms', projectId, formId],
    enabled: !!formId,
    queryFn: () => unwrap(api.GET('/forms/{id}', { params: { path: { id: formId! } } })),
  });
  const topics = useQuery({ queryKey: ['topics', projectId], queryFn: () => unwrap(api.GET('/topics')) });
  const [draft, setDraft] = useState<Draft>(draftOf());
  useEffect(() => {
    if (form.data) setDraft(draftOf(form.data));
  }, [form.data]);
  const save = useMutation({
    meta: { success: 'Form saved' },
    mutationFn: () =>
      formId
        ? unwrap(api.PATCH('/forms/{id}', { params: { path: { id: formId } }, body: bodyOf(draft) }))
        : unwrap(api.POST('/forms', { body: bodyOf(draft) })),
    onSuccess: async (saved) => {
      await qc.invalidateQueries({ queryKey: ['forms', projectId] });
      if (!formId) navigate(`/p/${projectId}/forms/${saved.id}`, { replace: true });
    },
  });
  if (formId && form.isPending) return <Loading />;
  if (formId && form.error) return <ErrorState error={form.error} />;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          {formId ? draft.name || 'Form' : 'New form'}
        </Title>
        <Anchor component={Link} to={`/p/${projectId}/forms`} size="sm">
          All forms
        </Anchor>
      </Group>
      {form.data ? (
        <Paper withBorder p="sm" component="section" aria-label="Share">
          <Group justify="space-between">
            <Text size="sm">
              Hosted page:{' '}
              <Anchor href={form.data.publicUrl} target="_blank" rel="noreferrer">
                {form.data.publicUrl}
              </Anchor>
            </Text>
            <CopyEmbed form={form.data} />
          </Group>
        </Paper>
      ) : null}
      <Grid>
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Paper withBorder p="md" component="section" aria-label="Form settings">
            <form onSubmit={submit} noValidate>
              <Stack gap="sm">
                <TextInput label="Name" description="The hosted page's title" required value={draft.name} onChange={(e) => set({ name: e.currentTarget.value })} error={fieldError(save.error, 'name')} />
                <FieldsEditor fields={draft.fields} onChange={(fields) => set({ fields })} error={save.error} />
                <MultiSelect
                  label="Topics"
                  description="A signup subscribes to these"
                  data={(topics.data?.data ?? []).map((t) => ({ value: t.slug, label: t.name }))}
                  value={draft.topics}
                  onChange={(v) => set({ topics: v })}
                  error={fieldError(save.error, 'topics') ?? fieldError(save.error, 'topics.0')}
                  clearable
                />
                <Switch
                  label="Double opt-in"
                  description="Ask every signup to confirm by email first; off, the project's settings decide"
                  checked={draft.doubleOptIn}
                  onChange={(e) => set({ doubleOptIn: e.currentTarget.checked })}
                  error={fieldError(save.error, 'doubleOptIn')}
                />
                <Textarea
                  label="Success message"
                  description="Shown after a signup; empty: a short thank-you"
                  autosize
                  minRows={2}
                  value={draft.successMessage}
                  onChange={(e) => set({ successMessage: e.currentTarget.value })}
                  error={fieldError(save.error, 'successMessage')}
                />
                <TextInput
                  label="Redirect URL"
                  description="Send people here after a signup instead of the success message"
                  placeholder="https://example.com/thanks"
                  value={draft.redirectUrl}
                  onChange={(e) => set({ redirectUrl: e.currentTarget.value })}
                  error={fieldError(save.error, 'redirectUrl')}
                />
                {save.error && !hasFieldErrors(save.error) ? <ErrorState error={save.error} title="Not saved" /> : null}
                <SaveButton label={formId ? 'Save' : 'Create form'} save={save} />
              </Stack>
            </form>
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <Paper withBorder p="md" component="section" aria-label="Preview">
            <Stack gap="xs">
              <Title order={2} size="h5">
                Preview
              </Title>
              <FormPreview name={draft.name || 'Untitled form'} fields={draft.fields.filter((f) => f.key && f.label)} />
            </Stack>
          </Paper>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
