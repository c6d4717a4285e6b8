import { useMemo, useState, type FormEvent } from 'react';
import { Anchor, Button, Grid, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { api, ApiError, unwrap } from '../api/client';
import { keys } from '../api/queryKeys';
import { useEmailPreview, useTemplate, useTemplateDraft } from '../api/hooks/templates';
import { useCurrentProject } from '../api/project';
import { publish, putDraft, type TemplateContent } from '../api/emailEditor';
import { templateFieldOf } from '../api/templates';
import { ErrorState, Loading } from '../components/States';
import { ContentEditor } from '../components/emailEditor/ContentEditor';
import { DeleteTemplate } from '../components/emailEditor/DeleteTemplate';
import { PreviewPanel, usePreviewData } from '../components/emailEditor/PreviewPanel';
import { PublishButton } from '../components/emailEditor/PublishButton';
import { SendTest } from '../components/emailEditor/SendTest';
import { TemplateFields } from '../components/emailEditor/TemplateFields';
import { TemplateUsage } from '../components/emailEditor/TemplateUsage';
import { VersionsDrawer } from '../components/emailEditor/VersionsDrawer';
import { blankDraft, contentOf, createBodyOf, draftOf, localised, metaChanges, type Draft, type Template } from '../components/emailEditor/templateDraft';
import { useTranslation } from 'react-i18next';
import { useStarterWords } from '../components/emailEditor/useStarterWords';

/**
 * The template editor: settings, then the content of one language in the "Blocks" or "HTML" editor,
 * beside the server's preview and its "Checks". "Save draft" keeps the content as the draft; "Publish"
 * makes it the version that is sent.
 */
function Editor({
  projectId,
  template,
  content,
  onRestored,
}: {
  projectId: string;
  template: Template | null;
  content: TemplateContent | null;
  onRestored(): void;
}) {
  const { t } = useTranslation('editor');
  const qc = useQueryClient();
  const navigate = useNavigate();
  const { draftBody } = useStarterWords();
  const [draft, setDraft] = useState<Draft>(() => (template ? draftOf(template, content) : blankDraft(draftBody)));
  const [saved, setSaved] = useState(() => JSON.stringify(draft));
  const [locale, setLocale] = useState('');
  const [selected, setSelected] = useState<string | null>(null);
  const previewData = usePreviewData();
  const [contactId, setContactId] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [published, setPublished] = useState<number | null>(null);
  const dirty = !template || JSON.stringify(draft) !== saved;

  const shown = localised(draft, locale);
  const preview = useEmailPreview(
    projectId,
    {
      subject: shown.subject,
      editor: draft.editor,
      ...(draft.editor === 'blocks' ? { document: shown.document ?? undefined } : { body: shown.body }),
      text: shown.text || null,
      type: draft.type,
      data: previewData.data ?? {},
      ...(contactId ? { contactId } : {}),
    },
    !previewData.problem,
  );
  const flagged = useMemo(() => new Set((preview.data?.checks ?? []).flatMap((c) => (c.blockId ? [c.blockId] : []))), [preview.data]);

  const save = useMutation({
    meta: { success: t('templateEditor.saved') },
    mutationFn: async () => {
      if (!template) {
        // The editor's new fields (editor, document, variants) are the contract's; the generated types follow the API.
        const created = await unwrap(api.POST('/templates', { body: createBodyOf(draft) as never }));
        await qc.invalidateQueries({ queryKey: keys.templates.all(projectId) });
        await qc.invalidateQueries({ queryKey: keys.setupState(projectId) });
        void navigate(`/p/${projectId}/templates/${created.id}`, { replace: true });
        return;
      }
      const meta = metaChanges(draft, template);
      if (Object.keys(meta).length) {
        const row = await unwrap(api.PATCH('/templates/{id}', { params: { path: { id: template.id } }, body: meta }));
        qc.setQueryData(keys.templates.one(projectId, template.id), row);
      }
      await putDraft(projectId, template.id, contentOf(draft));
      setSaved(JSON.stringify(draft));
      await qc.invalidateQueries({ queryKey: keys.templates.all(projectId) });
    },
  });
  const publishing = useMutation({
    meta: { success: t('templateEditor.publishedToast') },
    mutationFn: async (note: string) => {
      await save.mutateAsync();
      return publish(projectId, template!.id, note);
    },
    onSuccess: async (version) => {
      setPublished(version.number);
      await qc.invalidateQueries({ queryKey: keys.templates.versions(projectId, template!.id) });
    },
  });
  const duplicate = useMutation({
    meta: { success: t('templateEditor.duplicated') },
    mutationFn: () => unwrap(api.POST('/templates/{id}/duplicate', { params: { path: { id: template!.id } } })),
    onSuccess: async (copy) => {
      await qc.invalidateQueries({ queryKey: keys.templates.all(projectId) });
      void navigate(`/p/${projectId}/templates/${copy.id}`);
    },
  });

  // A field's message: the save's (flat `{ error }` naming its field) or the preview's 422 envelope.
  const saveProblem = templateFieldOf(save.error);
  const previewFields = preview.error instanceof ApiError ? preview.error.fields : {};
  const errorOf = (field: string) => (saveProblem?.field === field ? saveProblem.message : undefined) ?? previewFields[field];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };

  return (
    <Stack>
      <Group justify="space-between">
        <div>
          <Anchor component={Link} to={`/p/${projectId}/templates`} size="sm">
            {t('templateEditor.back')}
          </Anchor>
          <Title order={1} size="h2">
            {template ? template.name : t('templateEditor.newTemplate')}
          </Title>
          {template ? <TemplateUsage projectId={projectId} templateId={template.id} /> : null}
        </div>
        {template ? (
          <Group gap="xs">
            <VersionsDrawer projectId={projectId} templateId={template.id} onRestored={onRestored} />
            <SendTest projectId={projectId} templateId={template.id} data={previewData.data} dirty={dirty} save={() => save.mutateAsync()} />
            <Button variant="default" onClick={() => duplicate.mutate()} loading={duplicate.isPending}>
              {t('templateEditor.duplicate')}
            </Button>
            <Button color="red" variant="light" onClick={() => setDeleting(true)}>
              {t('templateEditor.delete')}
            </Button>
          </Group>
        ) : null}
      </Group>
      {duplicate.error ? <ErrorState error={duplicate.error} title={t('templateEditor.notDuplicated')} /> : null}
      <Grid gap="md">
        <Grid.Col span={{ base: 12, lg: 7 }}>
          <Paper withBorder p="md">
            <form onSubmit={submit} noValidate>
              <Stack gap="sm">
                <TemplateFields meta={draft} set={(patch) => setDraft((d) => ({ ...d, ...patch }))} errorOf={errorOf} />
                <ContentEditor
                  projectId={projectId}
                  draft={draft}
                  setDraft={setDraft}
                  locale={locale}
                  setLocale={setLocale}
                  selected={selected}
                  onSelect={setSelected}
                  flagged={flagged}
                  errorOf={errorOf}
                  isNew={!template}
                />
                {save.error && !saveProblem ? <ErrorState error={save.error} title={t('notSaved')} /> : null}
                <Group justify="flex-end">
                  {save.isSuccess && template && !dirty ? (
                    <Text size="sm" c="green" role="status">
                      {t('templateEditor.savedLine')}
                    </Text>
                  ) : null}
                  <Button type="submit" variant={template ? 'default' : 'filled'} loading={save.isPending} disabled={!dirty}>
                    {template ? t('templateEditor.saveDraft') : t('templateEditor.create')}
                  </Button>
                  {template ? (
                    <PublishButton
                      onPublish={(note) => publishing.mutateAsync(note)}
                      pending={publishing.isPending}
                      error={publishing.error}
                      published={dirty ? null : published}
                    />
                  ) : null}
                </Group>
              </Stack>
            </form>
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 5 }}>
          <PreviewPanel
            projectId={projectId}
            preview={preview}
            contactId={contactId}
            onContact={setContactId}
            previewData={previewData}
            onSelect={setSelected}
          />
        </Grid.Col>
      </Grid>
      {deleting && template ? <DeleteTemplate projectId={projectId} template={template} onClose={() => setDeleting(false)} /> : null}
    </Stack>
  );
}

/**
 * `/templates/new` and `/templates/:templateId`: the editor keeps its own copy, seeded once from the
 * template and its draft (GET /templates/:id/draft: the published content when there is no draft).
 */
export default function TemplateEditor() {
  const { t } = useTranslation('editor');
  const { projectId } = useCurrentProject();
  const { templateId } = useParams();
  const qc = useQueryClient();
  const template = useTemplate(projectId, templateId);
  // Read once per visit (and after a restore): a refetch would replace what is being edited.
  const draft = useTemplateDraft(projectId, templateId);
  if (!templateId) return <Editor key="new" projectId={projectId} template={null} content={null} onRestored={() => undefined} />;
  if (template.isPending || draft.isPending) return <Loading />;
  if (template.error) return <ErrorState error={template.error} title={t('templateEditor.notFound')} />;
  if (draft.error) return <ErrorState error={draft.error} title={t('templateEditor.draftFailed')} />;
  return (
    <Editor
      key={`${template.data.id}:${draft.dataUpdatedAt}`}
      projectId={projectId}
      template={template.data}
      content={draft.data}
      onRestored={() => void qc.invalidateQueries({ queryKey: keys.templates.draft(projectId, templateId) })}
    />
  );
}
