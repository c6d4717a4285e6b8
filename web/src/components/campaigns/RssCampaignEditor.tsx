import { useMemo, useState, type FormEvent } from 'react';
import { Anchor, Button, Group, Paper, SegmentedControl, Select, SimpleGrid, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { api, fieldError, hasFieldErrors, unwrap } from '../../api/client';
import { keys } from '../../api/queryKeys';
import { useTemplatePicker } from '../../api/hooks/templates';
import type { CampaignBody, CampaignDraft } from '../../api/campaigns';
import { TEMPLATE_TYPES } from '../../api/templates';
import { browserZone, newRssDraft, rssBodyOf, weekdayName, zoneNames, type RssDraft } from '../../api/rssCampaigns';
import { ErrorState } from '../States';
import { newTree } from '../FilterBuilder';
import { AudienceFields } from './AudienceFields';
import { useTranslation } from 'react-i18next';

/** A list's weekday starts with a capital (French names are lower case in a sentence: "chaque lundi"). */
const capitalised = (word: string) => word.charAt(0).toLocaleUpperCase() + word.slice(1);

/**
 * `/campaigns/new?kind=rss`: an RSS campaign (docs/campaigns.md "RSS-to-email") is a feed, a
 * schedule, a template and an audience. Creating it (POST /campaigns with `kind: "RSS"`) leaves it a
 * DRAFT; its page then activates it, sends it now, pauses, resumes or cancels it.
 */
export function RssCampaignEditor({ projectId }: { projectId: string }) {
  const { t } = useTranslation('campaigns');
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [draft, setDraft] = useState<RssDraft>(() => newRssDraft(newTree(), browserZone()));
  const set = (p: Partial<RssDraft>) => setDraft((d) => ({ ...d, ...p }));
  const zones = useMemo(zoneNames, []);
  const templates = useTemplatePicker(projectId);
  const create = useMutation({
    meta: { success: t('rssEditor.created') },
    // The route takes the RSS body under `kind: "RSS"`; the generated client types only the regular one.
    mutationFn: async () => (await unwrap(api.POST('/campaigns', { body: rssBodyOf(draft) as unknown as CampaignBody }))).data,
    onSuccess: async (row) => {
      qc.setQueryData(keys.campaigns.one(projectId, row.id), row);
      await qc.invalidateQueries({ queryKey: keys.campaigns.all(projectId) });
      navigate(`/p/${projectId}/campaigns/${row.id}`, { replace: true });
    },
  });
  const errorOf = (field: string) => fieldError(create.error, field);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };

  return (
    <Stack>
      <div>
        <Anchor component={Link} to={`/p/${projectId}/campaigns`} size="sm">
          {t('back')}
        </Anchor>
        <Title order={1} size="h2">
          {t('rssEditor.title')}
        </Title>
        <Text size="sm" c="dimmed">
          {t('rssEditor.intro')}
        </Text>
      </div>
      <form onSubmit={submit} noValidate>
        <Stack>
          <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
            <Paper withBorder p="md">
              <Stack gap="sm">
                <Title order={2} size="h4">
                  {t('rssEditor.feed')}
                </Title>
                <TextInput
                  label={t('rssEditor.name')}
                  description={t('internalName')}
                  required
                  value={draft.name}
                  onChange={(e) => set({ name: e.currentTarget.value })}
                  error={errorOf('name')}
                />
                <TextInput
                  label={t('rssEditor.feedUrl')}
                  description={t('rssEditor.feedUrlHint')}
                  required
                  type="url"
                  placeholder={t('rssEditor.feedUrlPlaceholder')}
                  value={draft.feedUrl}
                  onChange={(e) => set({ feedUrl: e.currentTarget.value })}
                  error={errorOf('feedUrl')}
                />
                <Select
                  label={t('rssEditor.template')}
                  description={t('rssEditor.templateHint')}
                  required
                  placeholder={templates.isPending ? t('loading') : templates.data?.data.length ? t('pickTemplate') : t('noTemplates')}
                  data={(templates.data?.data ?? []).map((tpl) => ({ value: tpl.id, label: tpl.name }))}
                  value={draft.template}
                  onChange={(v) => set({ template: v })}
                  error={errorOf('template') ?? errorOf('from')}
                  searchable
                  allowDeselect={false}
                />
                {templates.error ? <ErrorState error={templates.error} title={t('rssEditor.templatesNotLoaded')} /> : null}
                <Select
                  label={t('rssEditor.type')}
                  data={TEMPLATE_TYPES.map((type) => ({ value: type, label: t(`type.${type}`) }))}
                  value={draft.type}
                  onChange={(v) => v && set({ type: v as CampaignDraft['type'] })}
                  allowDeselect={false}
                  error={errorOf('type')}
                />
                <Switch
                  label={t('rssEditor.archive')}
                  aria-label={t('rssEditor.archive')}
                  description={t('rssEditor.archiveHint')}
                  checked={draft.archive}
                  onChange={(e) => set({ archive: e.currentTarget.checked })}
                />
              </Stack>
            </Paper>
            <Stack>
              <Paper withBorder p="md">
                <Stack gap="sm">
                  <Title order={2} size="h4">
                    {t('rssEditor.schedule')}
                  </Title>
                  <SegmentedControl
                    aria-label={t('rssEditor.frequency')}
                    value={draft.frequency}
                    onChange={(v) => set({ frequency: v as RssDraft['frequency'] })}
                    data={[
                      { value: 'daily', label: t('rssEditor.daily') },
                      { value: 'weekly', label: t('rssEditor.weekly') },
                    ]}
                  />
                  <Group gap="xs" align="flex-start">
                    {draft.frequency === 'weekly' ? (
                      <Select
                        label={t('rssEditor.day')}
                        data={[0, 1, 2, 3, 4, 5, 6].map((i) => ({ value: String(i), label: capitalised(weekdayName(i)) }))}
                        value={String(draft.weekday)}
                        onChange={(v) => v && set({ weekday: Number(v) })}
                        allowDeselect={false}
                        error={errorOf('schedule.weekday')}
                        w={160}
                      />
                    ) : null}
                    <TextInput
                      label={t('rssEditor.time')}
                      type="time"
                      required
                      value={draft.time}
                      onChange={(e) => set({ time: e.currentTarget.value })}
                      error={errorOf('schedule.time')}
                      w={130}
                    />
                    <Select
                      label={t('rssEditor.timeZone')}
                      // The browser's zone may be one the list leaves out (Chromium lists no "UTC").
                      data={zones.includes(draft.timezone) ? zones : [draft.timezone, ...zones]}
                      searchable
                      value={draft.timezone}
                      onChange={(z) => z && set({ timezone: z })}
                      allowDeselect={false}
                      error={errorOf('schedule.timezone')}
                      w={240}
                    />
                  </Group>
                </Stack>
              </Paper>
              <Paper withBorder p="md">
                <Stack gap="sm">
                  <Title order={2} size="h4">
                    {t('rssEditor.audience')}
                  </Title>
                  <AudienceFields projectId={projectId} draft={draft} set={set} errors={create.error} />
                </Stack>
              </Paper>
            </Stack>
          </SimpleGrid>
          {create.error && !hasFieldErrors(create.error) ? <ErrorState error={create.error} title={t('rssEditor.notCreated')} /> : null}
          {hasFieldErrors(create.error) ? (
            <Text size="sm" c="red" role="alert">
              {t('rssEditor.notCreatedFields')}
            </Text>
          ) : null}
          <Group justify="flex-end">
            <Button type="submit" loading={create.isPending}>
              {t('rssEditor.create')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}
