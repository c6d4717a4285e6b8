import { useState, type FormEvent } from 'react';
import { Alert, Anchor, Button, Group, Modal, NumberInput, Paper, Select, SimpleGrid, Stack, Switch, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { api, ApiError, fieldError, hasFieldErrors, unwrap } from '../api/client';
import { keys } from '../api/queryKeys';
import { bodyOf, contactsText, draftOf, sendBodyOf, splitAddress, type Campaign, type CampaignDraft, type Schedule } from '../api/campaigns';
import { TEMPLATE_TYPES } from '../api/templates';
import { ErrorState } from '../components/States';
import { EmailPreview } from '../components/EmailPreview';
import { ContentChecks } from '../components/emailEditor/ContentChecks';
import { CampaignContent } from '../components/emailEditor/CampaignContent';
import { conditionErrors, newTree } from '../components/FilterBuilder';
import { AudienceFields } from '../components/campaigns/AudienceFields';
import { SenderFields, TemplatePicker, AbTestFields, SendTest, ScheduleFields, goesText } from '../components/campaigns/ComposerFields';
import { useTranslation } from 'react-i18next';

/**
 * The composer: a new campaign (`/campaigns/new`) or a DRAFT. Saving creates or replaces it (POST or
 * PUT /campaigns, the same body); "Send test", "Send now" and "Schedule" save first. Sending asks
 * first, naming how many contacts the audience holds now (GET /campaigns/:id/audience).
 */
export function CampaignEditor({ projectId, campaign }: { projectId: string; campaign: Campaign | null }) {
  const { t } = useTranslation('campaigns');
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [draft, setDraft] = useState<CampaignDraft>(() => draftOf(campaign, newTree()));
  const [saved, setSaved] = useState(() => JSON.stringify(bodyOf(draftOf(campaign, newTree()))));
  const [schedule, setSchedule] = useState<Schedule>({ kind: 'now' });
  const [confirming, setConfirming] = useState<{ count: number; schedule: Schedule } | null>(null);
  const set = (p: Partial<CampaignDraft>) => setDraft((d) => ({ ...d, ...p }));
  const dirty = !campaign || JSON.stringify(bodyOf(draft)) !== saved;

  const save = useMutation({
    meta: { success: t('editor.saved') },
    mutationFn: async (): Promise<Campaign> => {
      const body = bodyOf(draft);
      if (campaign && JSON.stringify(body) === saved) return campaign;
      const row = campaign
        ? await unwrap(api.PUT('/campaigns/{id}', { params: { path: { id: campaign.id } }, body }))
        : (await unwrap(api.POST('/campaigns', { body }))).data;
      setSaved(JSON.stringify(body));
      qc.setQueryData(keys.campaigns.one(projectId, row.id), row);
      await qc.invalidateQueries({ queryKey: keys.campaigns.all(projectId) });
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
        qc.invalidateQueries({ queryKey: keys.campaigns.one(projectId, campaign!.id) }),
        qc.invalidateQueries({ queryKey: keys.campaigns.all(projectId) }),
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
            {t('back')}
          </Anchor>
          <Title order={1} size="h2">
            {campaign ? campaign.name : t('editor.new')}
          </Title>
          {campaign ? (
            <Text size="sm" c="dimmed">
              {dirty ? t('editor.draftUnsaved') : t('editor.draft')}
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
                    {t('editor.message')}
                  </Title>
                  <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
                    <TextInput
                      label={t('editor.name')}
                      description={t('internalName')}
                      required
                      value={draft.name}
                      onChange={(e) => set({ name: e.currentTarget.value })}
                      error={errorOf('name')}
                    />
                    <Select
                      label={t('editor.type')}
                      data={TEMPLATE_TYPES.map((type) => ({ value: type, label: t(`type.${type}`) }))}
                      value={draft.type}
                      onChange={(v) => v && set({ type: v as CampaignDraft['type'] })}
                      allowDeselect={false}
                      error={errorOf('type')}
                    />
                  </SimpleGrid>
                  <SenderFields projectId={projectId} draft={draft} set={set} error={errorOf('from')} />
                  <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
                    <TextInput
                      label={t('editor.fromName')}
                      value={draft.fromName}
                      onChange={(e) => set({ fromName: e.currentTarget.value })}
                      error={errorOf('fromName')}
                    />
                    <TextInput
                      label={t('editor.replyTo')}
                      type="email"
                      value={draft.replyTo}
                      onChange={(e) => set({ replyTo: e.currentTarget.value })}
                      error={errorOf('replyTo')}
                    />
                  </SimpleGrid>
                  <TemplatePicker
                    projectId={projectId}
                    onPick={(tpl) => {
                      const [fromLocal, fromDomain] = splitAddress(tpl.from);
                      set({
                        subject: tpl.subject,
                        body: tpl.body,
                        text: tpl.text ?? '',
                        fromLocal,
                        fromDomain,
                        fromName: tpl.fromName ?? '',
                        replyTo: tpl.replyTo ?? '',
                      });
                    }}
                  />
                  <TextInput
                    label={t('editor.subject')}
                    required
                    value={draft.subject}
                    onChange={(e) => set({ subject: e.currentTarget.value })}
                    error={errorOf('subject') ?? errorOf('abTest.subjects.0')}
                  />
                  <AbTestFields draft={draft} set={set} errors={save.error} />
                  <CampaignContent projectId={projectId} draft={draft} set={set} errorOf={errorOf} />
                  <Textarea
                    label={t('editor.plainText')}
                    description={t('editor.plainTextHint')}
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
                    {t('editor.audience')}
                  </Title>
                  <AudienceFields projectId={projectId} draft={draft} set={set} errors={save.error} />
                  {treeProblem ? (
                    <Alert color="red" role="alert" p="xs">
                      {t('editor.filterRefused')}
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
                    {t('editor.delivery')}
                  </Title>
                  <NumberInput
                    label={t('editor.sendRate')}
                    description={t('editor.sendRateHint')}
                    min={1}
                    allowDecimal={false}
                    value={draft.sendRate}
                    onChange={(v) => set({ sendRate: String(v) })}
                    error={errorOf('sendRatePerMinute')}
                  />
                  <Switch
                    label={t('editor.archive')}
                    description={t('editor.archiveHint')}
                    checked={draft.archive}
                    onChange={(e) => set({ archive: e.currentTarget.checked })}
                  />
                  {campaign ? (
                    <>
                      <ScheduleFields schedule={schedule} setSchedule={setSchedule} />
                      <Group>
                        <Button onClick={() => prepare.mutate({ kind: 'now' })} loading={prepare.isPending && prepare.variables?.kind === 'now'}>
                          {t('editor.sendNow')}
                        </Button>
                        <Button
                          variant="light"
                          disabled={!scheduleReady}
                          onClick={() => prepare.mutate(schedule)}
                          loading={prepare.isPending && prepare.variables?.kind !== 'now'}
                        >
                          {t('editor.schedule')}
                        </Button>
                      </Group>
                      {prepare.error && !save.error ? <ErrorState error={prepare.error} title={t('editor.notSent')} /> : null}
                    </>
                  ) : (
                    <Text size="sm" c="dimmed">
                      {t('editor.saveFirst')}
                    </Text>
                  )}
                </Stack>
              </Paper>
            </Stack>
          </SimpleGrid>
          {otherSaveError ? <ErrorState error={save.error} title={t('editor.notSaved')} /> : null}
          {hasFieldErrors(save.error) ? (
            <Text size="sm" c="red" role="alert">
              {t('editor.notSavedFields')}
            </Text>
          ) : null}
          <Group justify="flex-end">
            {save.isSuccess && campaign && !dirty ? (
              <Text size="sm" c="green" role="status">
                {t('editor.savedNote')}
              </Text>
            ) : null}
            <Button type="submit" loading={save.isPending} disabled={!dirty}>
              {campaign ? t('editor.save') : t('editor.saveDraft')}
            </Button>
          </Group>
        </Stack>
      </form>
      <Modal
        opened={!!confirming}
        onClose={() => setConfirming(null)}
        title={confirming?.schedule.kind === 'now' ? t('editor.confirmSend') : t('editor.confirmSchedule')}
      >
        {confirming ? (
          <Stack>
            <Text data-testid="send-confirmation">
              {confirming.count ? goesText(t, draft.name, contactsText(confirming.count), confirming.schedule) : t('editor.nobody', { name: draft.name })}
            </Text>
            {confirming.schedule.kind !== 'now' ? (
              <Text size="sm" c="dimmed">
                {t('editor.countedNow')}
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
            {send.error ? <ErrorState error={send.error} title={t('editor.notSent')} /> : null}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setConfirming(null)}>
                {t('editor.cancel')}
              </Button>
              <Button onClick={() => send.mutate(confirming.schedule)} loading={send.isPending}>
                {confirming.schedule.kind === 'now'
                  ? t('editor.sendTo', { contacts: contactsText(confirming.count) })
                  : t('editor.scheduleFor', { contacts: contactsText(confirming.count) })}
              </Button>
            </Group>
          </Stack>
        ) : null}
      </Modal>
    </Stack>
  );
}
