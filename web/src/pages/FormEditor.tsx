import { useEffect, useState, type FormEvent } from 'react';
import { Anchor, Button, CopyButton, Grid, Group, MultiSelect, Paper, Stack, Switch, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { api, fieldError, hasFieldErrors, type ResponseOf, unwrap } from '../api/client';
import { keys } from '../api/queryKeys';
import { useForm } from '../api/hooks/forms';
import { useTopics } from '../api/hooks/topics';
import { useCurrentProject } from '../api/project';
import { ErrorState, Loading } from '../components/States';
import { SaveButton } from '../components/SaveButton';
import { FieldsEditor } from '../components/forms/FieldsEditor';
import { FormPreview } from '../components/forms/FormPreview';
import type { FormField } from '../components/forms/formMarkup';
import { useTranslation } from 'react-i18next';

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
  const { t } = useTranslation('editor');
  return (
    <CopyButton value={form.embedHtml}>
      {({ copied, copy }) => (
        <Button size="xs" variant="light" color={copied ? 'teal' : 'blue'} onClick={copy}>
          {copied ? t('formEditor.copied') : t('formEditor.copyEmbed')}
        </Button>
      )}
    </CopyButton>
  );
}

/** A signup form's settings (docs/forms.md), beside a live preview of its hosted page. */
export default function FormEditor() {
  const { t } = useTranslation('editor');
  const { projectId } = useCurrentProject();
  const { formId } = useParams();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const form = useForm(projectId, formId);
  const topics = useTopics(projectId);
  const [draft, setDraft] = useState<Draft>(draftOf());
  useEffect(() => {
    if (form.data) setDraft(draftOf(form.data));
  }, [form.data]);
  const save = useMutation({
    meta: { success: t('formEditor.saved') },
    mutationFn: () =>
      formId
        ? unwrap(api.PATCH('/forms/{id}', { params: { path: { id: formId } }, body: bodyOf(draft) }))
        : unwrap(api.POST('/forms', { body: bodyOf(draft) })),
    onSuccess: async (saved) => {
      await qc.invalidateQueries({ queryKey: keys.forms.all(projectId) });
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
          {formId ? draft.name || t('formEditor.form') : t('formEditor.newForm')}
        </Title>
        <Anchor component={Link} to={`/p/${projectId}/forms`} size="sm">
          {t('formEditor.allForms')}
        </Anchor>
      </Group>
      {form.data ? (
        <Paper withBorder p="sm" component="section" aria-label={t('formEditor.share')}>
          <Group justify="space-between">
            <Text size="sm">
              {t('formEditor.hostedPage')}{' '}
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
          <Paper withBorder p="md" component="section" aria-label={t('formEditor.settings')}>
            <form onSubmit={submit} noValidate>
              <Stack gap="sm">
                <TextInput
                  label={t('formEditor.name')}
                  description={t('formEditor.nameHint')}
                  required
                  value={draft.name}
                  onChange={(e) => set({ name: e.currentTarget.value })}
                  error={fieldError(save.error, 'name')}
                />
                <FieldsEditor fields={draft.fields} onChange={(fields) => set({ fields })} error={save.error} />
                <MultiSelect
                  label={t('formEditor.topics')}
                  description={t('formEditor.topicsHint')}
                  data={(topics.data?.data ?? []).map((t) => ({ value: t.slug, label: t.name }))}
                  value={draft.topics}
                  onChange={(v) => set({ topics: v })}
                  error={fieldError(save.error, 'topics') ?? fieldError(save.error, 'topics.0')}
                  clearable
                />
                <Switch
                  label={t('formEditor.doubleOptIn')}
                  description={t('formEditor.doubleOptInHint')}
                  checked={draft.doubleOptIn}
                  onChange={(e) => set({ doubleOptIn: e.currentTarget.checked })}
                  error={fieldError(save.error, 'doubleOptIn')}
                />
                <Textarea
                  label={t('formEditor.success')}
                  description={t('formEditor.successHint')}
                  autosize
                  minRows={2}
                  value={draft.successMessage}
                  onChange={(e) => set({ successMessage: e.currentTarget.value })}
                  error={fieldError(save.error, 'successMessage')}
                />
                <TextInput
                  label={t('formEditor.redirect')}
                  description={t('formEditor.redirectHint')}
                  placeholder={t('examples.redirect')}
                  value={draft.redirectUrl}
                  onChange={(e) => set({ redirectUrl: e.currentTarget.value })}
                  error={fieldError(save.error, 'redirectUrl')}
                />
                {save.error && !hasFieldErrors(save.error) ? <ErrorState error={save.error} title={t('notSaved')} /> : null}
                <SaveButton label={formId ? t('formEditor.save') : t('formEditor.create')} save={save} />
              </Stack>
            </form>
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <Paper withBorder p="md" component="section" aria-label={t('formEditor.preview')}>
            <Stack gap="xs">
              <Title order={2} size="h5">
                {t('formEditor.preview')}
              </Title>
              <FormPreview name={draft.name || t('formEditor.untitled')} fields={draft.fields.filter((f) => f.key && f.label)} />
            </Stack>
          </Paper>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
