import { useMemo, useState, type FormEvent } from 'react';
import { Anchor, Button, Group, Paper, SegmentedControl, Select, SimpleGrid, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { api, fieldError, hasFieldErrors, unwrap } from '../../api/client';
import type { CampaignBody, CampaignDraft } from '../../api/campaigns';
import { TEMPLATE_TYPES } from '../../api/templates';
import { browserZone, newRssDraft, rssBodyOf, WEEKDAYS, zoneNames, type RssDraft } from '../../api/rssCampaigns';
import { ErrorState } from '../States';
import { newTree } from '../FilterBuilder';
import { AudienceFields } from './AudienceFields';

/**
 * `/campaigns/new?kind=rss`: an RSS campaign (docs/campaigns.md "RSS-to-email") is a feed, a
 * schedule, a template and an audience. Creating it (POST /campaigns with `kind: "RSS"`) leaves it a
 * DRAFT; its page then activates it, sends it now, pauses, resumes or cancels it.
 */
export function RssCampaignEditor({ projectId }: { projectId: string }) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [draft, setDraft] = useState<RssDraft>(() => newRssDraft(newTree(), browserZone()));
  const set = (p: Partial<RssDraft>) => setDraft((d) => ({ ...d, ...p }));
  const zones = useMemo(zoneNames, []);
  const templates = useQuery({
    queryKey: ['templates', projectId, 'picker'],
    queryFn: () =>
      unwrap(api.GET('/templates', { params: { query: { page: 1, pageSize: 100, sort: 'updatedAt', dir: 'desc' } } })),
  });
  const create = useMutation({
    meta: { success: 'RSS campaign created' },
    // The route takes the RSS body under `kind: "RSS"`; the generated client types only the regular one.
    mutationFn: async () => (await unwrap(api.POST('/campaigns', { body: rssBodyOf(draft) as unknown as CampaignBody }))).data,
    onSuccess: async (row) => {
      qc.setQueryData(['campaign', projectId, row.id], row);
      await qc.invalidateQueries({ queryKey: ['campaigns', projectId] });
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
          ← Campaigns
        </Anchor>
        <Title order={1} size="h2">
          New RSS campaign
        </Title>
        <Text size="sm" c="dimmed">
          On its schedule it reads the feed; when items newer than the last send exist, it sends one email with them to the audience. Nothing new, nothing sent.
        </Text>
      </div>
      <form onSubmit={submit} noValidate>
        <Stack>
          <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
            <Paper withBorder p="md">
              <Stack gap="sm">
                <Title order={2} size="h4">
                  Feed
                </Title>
                <TextInput
                  label="Name"
                  description="Internal, never sent"
                  required
                  value={draft.name}
                  onChange={(e) => set({ name: e.currentTarget.value })}
                  error={errorOf('name')}
                />
                <TextInput
                  label="Feed URL"
                  description="An RSS or Atom feed (http or https)"
                  required
                  type="url"
                  placeholder="https://blog.example.com/feed.xml"
                  value={draft.feedUrl}
                  onChange={(e) => set({ feedUrl: e.currentTarget.value })}
                  error={errorOf('feedUrl')}
                />
                <Select
                  label="Template"
                  description={'Its subject, body and sender make each email; {% for item in items %} lists the new items'}
                  required
                  placeholder={templates.isPending ? 'Loading…' : templates.data?.data.length ? 'Pick a template' : 'No templates yet'}
                  data={(templates.data?.data ?? []).map((t) => ({ value: t.id, label: t.name }))}
                  value={draft.template}
                  onChange={(v) => set({ template: v })}
                  error={errorOf('template') ?? errorOf('from')}
                  searchable
                  allowDeselect={false}
                />
                {templates.error ? <ErrorState error={templates.error} title="Templates not loaded" /> : null}
                <Select
                  label="Type"
                  data={TEMPLATE_TYPES.map((t) => ({ value: t, label: t.charAt(0) + t.slice(1).toLowerCase() }))}
                  value={draft.type}
                  onChange={(v) => v && set({ type: v as CampaignDraft['type'] })}
                  allowDeselect={false}
                  error={errorOf('type')}
                />
                <Switch
                  label="Archive"
                  aria-label="Archive"
                  description="Show each email it sends in the public archive"
                  checked={draft.archive}
                  onChange={(e) => set({ archive: e.currentTarget.checked })}
                />
              </Stack>
            </Paper>
            <Stack>
              <Paper withBorder p="md">
                <Stack gap="sm">
                  <Title order={2} size="h4">
                    Schedule
                  </Title>
                  <SegmentedControl
                    aria-label="Frequency"
                    value={draft.frequency}
                    onChange={(v) => set({ frequency: v as RssDraft['frequency'] })}
                    data={[
                      { value: 'daily', label: 'Daily' },
                      { value: 'weekly', label: 'Weekly' },
                    ]}
                  />
                  <Group gap="xs" align="flex-start">
                    {draft.frequency === 'weekly' ? (
                      <Select
                        label="Day"
                        data={WEEKDAYS.map((d, i) => ({ value: String(i), label: d }))}
                        value={String(draft.weekday)}
                        onChange={(v) => v && set({ weekday: Number(v) })}
                        allowDeselect={false}
                        error={errorOf('schedule.weekday')}
                        w={160}
                      />
                    ) : null}
                    <TextInput
                      label="Time"
                      type="time"
                      required
                      value={draft.time}
                      onChange={(e) => set({ time: e.currentTarget.value })}
                      error={errorOf('schedule.time')}
                      w={130}
                    />
                    <Select
                      label="Time zone"
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
                    Audience
                  </Title>
                  <AudienceFields projectId={projectId} draft={draft} set={set} errors={create.error} />
                </Stack>
              </Paper>
            </Stack>
          </SimpleGrid>
          {create.error && !hasFieldErrors(create.error) ? <ErrorState error={create.error} title="Not created" /> : null}
          {hasFieldErrors(create.error) ? (
            <Text size="sm" c="red" role="alert">
              Not created: see the marked fields.
            </Text>
          ) : null}
          <Group justify="flex-end">
            <Button type="submit" loading={create.isPending}>
              Create RSS campaign
            </Button>
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}
