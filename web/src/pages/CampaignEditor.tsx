import { useState, type FormEvent } from 'react';
import { Alert, Anchor, Button, Group, Modal, NumberInput, Paper, Select, SimpleGrid, Stack, Switch, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { api, ApiError, fieldError, hasFieldErrors, unwrap } from '../api/client';
import { bodyOf, contactsText, draftOf, sendBodyOf, splitAddress, type Campaign, type CampaignDraft, type Schedule } from '../api/campaigns';
import { TEMPLATE_TYPES } from '../api/templates';
import { ErrorState } from '../components/States';
import { EmailPreview } from '../components/EmailPreview';
import { ContentChecks } from '../components/emailEditor/ContentChecks';
import { CampaignContent } from '../components/emailEditor/CampaignContent';
import { conditionErrors, newTree } from '../components/FilterBuilder';
import { AudienceFields } from '../components/campaigns/AudienceFields';
import { SenderFields, TemplatePicker, AbTestFields, SendTest, ScheduleFields, whenText } from '../components/campaigns/ComposerFields';

/**
 * The composer: a new campaign (`/campaigns/new`) or a DRAFT. Saving creates or replaces it (POST or
 * PUT /campaigns, the same body); "Send test", "Send now" and "Schedule" save first. Sending asks
 * first, naming how many contacts the audience holds now (GET /campaigns/:id/audience).
 */
export function CampaignEditor({ projectId, campaign }: { projectId: string; campaign: Campaign | null }) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [draft, setDraft] = useState<CampaignDraft>(() => draftOf(campaign, newTree()));
  const [saved, setSaved] = useState(() => JSON.stringify(bodyOf(draftOf(campaign, newTree()))));
  const [schedule, setSchedule] = useState<Schedule>({ kind: 'now' });
  const [confirming, setConfirming] = useState<{ count: number; schedule: Schedule } | null>(null);
  const set = (p: Partial<CampaignDraft>) => setDraft((d) => ({ ...d, ...p }));
  const dirty = !campaign || JSON.stringify(bodyOf(draft)) !== saved;

  const save = useMutation({
    meta: { success: 'Campaign saved' },
    mutationFn: async (): Promise<Campaign> => {
      const body = bodyOf(draft);
      if (campaign && JSON.stringify(body) === saved) return campaign;
      const row = campaign
        ? await unwrap(api.PUT('/campaigns/{id}', { params: { path: { id: campaign.id } }, body }))
        : (await unwrap(api.POST('/campaigns', { body }))).data;
      setSaved(JSON.stringify(body));
      qc.setQueryData(['campaign', projectId, row.id], row);
      await qc.invalidateQueries({ queryKey: ['campaigns', projectId] });
      return row;
    },
    onSuccess: (row) => {
      if (!campaign) navigate(`/p/${projectId}/campaigns/${row.id}`, { replace: true });
    },
  });

  /** Saves, then counts the audience as sending would, and asks. */
  const prepare = useMutation({
    mutationFn: async (s: Schedule) => {
      const row = await save.mutateAsync();
      const { count } = await unwrap(api.GET('/campaigns/{id}/audience', { params: { path: { id: row.id } } }));
      return { count, schedule: s };
    },
    onSuccess: setConfirming,
  });
  const send = useMutation({
    mutationFn: (s: Schedule) => unwrap(api.POST('/campaigns/{id}/send', { params: { path: { id: campaign!.id } }, body: sendBodyOf(s) })),
    onSuccess: async () => {
      setConfirming(null);
      await Promise.all([
        qc.invalidateQueries({ queryKey: ['campaign', projectId, campaign!.id] }),
        qc.invalidateQueries({ queryKey: ['campaigns', projectId] }),
      ]);
    },
  });

  const errorOf = (field: string) => fieldError(save.error, field);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const scheduleReady = schedule.kind !== 'now' && !!schedule.local;
  const otherSaveError = save.error && !hasFieldErrors(save.error);
  const treeProblem = save.error instanceof ApiError && Object.keys(conditionErrors(save.error, 'audienceCondition')).length > 0;

  return (
    <Stack>
      <Group justify="space-between" align="flex-end">
        <div>
          <Anchor component={Link} to={`/p/${projectId}/campaigns`} size="sm">
            ← Campaigns
          </Anchor>
          <Title order={1} size="h2">
            {campaign ? campaign.name : 'New campaign'}
          </Title>
          {campaign ? (
            <Text size="sm" c="dimmed">
              Draft{dirty ? ' · unsaved changes' : ''}
            </Text>
          ) : null}
        </div>
        {campaign ? <SendTest save={() => save.mutateAsync()} disabled={save.isPending} /> : null}
      </Group>
      <form onSubmit={submit} noValidate>
        <Stack>
          <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
            <Stack>
              <Paper withBorder p="md">
                <Stack gap="sm">
                  <Title order={2} size="h4">
                    Message
                  </Title>
                  <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
                    <TextInput
                      label="Name"
                      description="Internal, never sent"
                      required
                      value={draft.name}
                      onChange={(e) => set({ name: e.currentTarget.value })}
                      error={errorOf('name')}
                    />
                    <Select
                      label="Type"
                      data={TEMPLATE_TYPES.map((t) => ({ value: t, label: t.charAt(0) + t.slice(1).toLowerCase() }))}
                      value={draft.type}
                      onChange={(v) => v && set({ type: v as CampaignDraft['type'] })}
                      allowDeselect={false}
                      error={errorOf('type')}
                    />
                  </SimpleGrid>
                  <SenderFields projectId={projectId} draft={draft} set={set} error={errorOf('from')} />
                  <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
                    <TextInput
                      label="From name"
                      value={draft.fromName}
                      onChange={(e) => set({ fromName: e.currentTarget.value })}
                      error={errorOf('fromName')}
                    />
                    <TextInput
                      label="Reply-to"
                      type="email"
                      value={draft.replyTo}
                      onChange={(e) => set({ replyTo: e.currentTarget.value })}
                      error={errorOf('replyTo')}
                    />
                  </SimpleGrid>
                  <TemplatePicker
                    projectId={projectId}
                    onPick={(t) => {
                      const [fromLocal, fromDomain] = splitAddress(t.from);
                      set({
                        subject: t.subject,
                        body: t.body,
                        text: t.text ?? '',
                        fromLocal,
                        fromDomain,
                        fromName: t.fromName ?? '',
                        replyTo: t.replyTo ?? '',
                      });
                    }}
                  />
                  <TextInput
                    label="Subject"
                    required
                    value={draft.subject}
                    onChange={(e) => set({ subject: e.currentTarget.value })}
                    error={errorOf('subject') ?? errorOf('abTest.subjects.0')}
                  />
                  <AbTestFields draft={draft} set={set} errors={save.error} />
                  <CampaignContent projectId={projectId} draft={draft} set={set} errorOf={errorOf} />
                  <Textarea
                    label="Plain text"
                    description="Optional: the text/plain part's own Liquid source; left empty, it is generated from the HTML"
                    value={draft.text}
                    onChange={(e) => set({ text: e.currentTarget.value })}
                    error={errorOf('text')}
                    autosize
                    minRows={2}
                    maxRows={10}
                    spellCheck={false}
                    styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } }}
                  />
                </Stack>
              </Paper>
              <Paper withBorder p="md">
                <Stack gap="sm">
                  <Title order={2} size="h4">
                    Audience
                  </Title>
                  <AudienceFields projectId={projectId} draft={draft} set={set} errors={save.error} />
                  {treeProblem ? (
                    <Alert color="red" role="alert" p="xs">
                      The audience filter is refused; see the marked filters.
                    </Alert>
                  ) : null}
                </Stack>
              </Paper>
            </Stack>
            <Stack>
              <EmailPreview
                projectId={projectId}
                subject={draft.subject}
                body={draft.body}
                document={draft.editor === 'blocks' ? draft.document : null}
                text={draft.text || null}
              />
              <Paper withBorder p="md">
                <Stack gap="sm">
                  <Title order={2} size="h4">
                    Delivery
                  </Title>
                  <NumberInput
                    label="Send rate (emails per minute)"
                    description="Optional: paces the hand-over, e.g. while a new domain warms up; empty: as fast as the project's send rate allows"
                    min={1}
                    allowDecimal={false}
                    value={draft.sendRate}
                    onChange={(v) => set({ sendRate: String(v) })}
                    error={errorOf('sendRatePerMinute')}
                  />
                  <Switch
                    label="Archive"
                    description="Show in the public archive"
                    checked={draft.archive}
                    onChange={(e) => set({ archive: e.currentTarget.checked })}
                  />
                  {campaign ? (
                    <>
                      <ScheduleFields schedule={schedule} setSchedule={setSchedule} />
                      <Group>
                        <Button onClick={() => prepare.mutate({ kind: 'now' })} loading={prepare.isPending && prepare.variables?.kind === 'now'}>
                          Send now
                        </Button>
                        <Button
                          variant="light"
                          disabled={!scheduleReady}
                          onClick={() => prepare.mutate(schedule)}
                          loading={prepare.isPending && prepare.variables?.kind !== 'now'}
                        >
                          Schedule
                        </Button>
                      </Group>
                      {prepare.error && !save.error ? <ErrorState error={prepare.error} title="Not sent" /> : null}
                    </>
                  ) : (
                    <Text size="sm" c="dimmed">
                      Save the draft to test-send, send or schedule it.
                    </Text>
                  )}
                </Stack>
              </Paper>
            </Stack>
          </SimpleGrid>
          {otherSaveError ? <ErrorState error={save.error} title="Not saved" /> : null}
          {hasFieldErrors(save.error) ? (
            <Text size="sm" c="red" role="alert">
              Not saved: see the marked fields.
            </Text>
          ) : null}
          <Group justify="flex-end">
            {save.isSuccess && campaign && !dirty ? (
              <Text size="sm" c="green" role="status">
                Saved.
              </Text>
            ) : null}
            <Button type="submit" loading={save.isPending} disabled={!dirty}>
              {campaign ? 'Save' : 'Save draft'}
            </Button>
          </Group>
        </Stack>
      </form>
      <Modal
        opened={!!confirming}
        onClose={() => setConfirming(null)}
        title={confirming?.schedule.kind === 'now' ? 'Send this campaign?' : 'Schedule this campaign?'}
      >
        {confirming ? (
          <Stack>
            <Text data-testid="send-confirmation">
              {confirming.count
                ? `${draft.name} goes to ${contactsText(confirming.count)} ${whenText(confirming.schedule)}.`
                : `${draft.name}'s audience holds no contact now: nothing would be sent.`}
            </Text>
            {confirming.schedule.kind !== 'now' ? (
              <Text size="sm" c="dimmed">
                Counted now; the audience is taken again when sending starts.
              </Text>
            ) : null}
            <ContentChecks
              projectId={projectId}
              subject={draft.subject}
              body={draft.body}
              document={draft.editor === 'blocks' ? draft.document : null}
              text={draft.text || null}
              type={draft.type}
            />
            {send.error ? <ErrorState error={send.error} title="Not sent" /> : null}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setConfirming(null)}>
                Cancel
              </Button>
              <Button onClick={() => send.mutate(confirming.schedule)} loading={send.isPending}>
                {confirming.schedule.kind === 'now' ? `Send to ${contactsText(confirming.count)}` : `Schedule for ${contactsText(confirming.count)}`}
              </Button>
            </Group>
          </Stack>
        ) : null}
      </Modal>
    </Stack>
  );
}
