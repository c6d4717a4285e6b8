import { useState, type FormEvent } from 'react';
import { Alert, Anchor, Button, Group, NumberInput, Paper, SimpleGrid, Stack, Switch, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { api, ApiError, fieldError, hasFieldErrors, unwrap } from '../api/client';
import { keys } from '../api/queryKeys';
import { bodyOf, draftOf, type Campaign, type CampaignDraft, type Schedule } from '../api/campaigns';
import { ErrorState } from '../components/States';
import { EmailPreview } from '../components/EmailPreview';
import { conditionErrors, newTree } from '../components/FilterBuilder';
import { AudienceFields } from '../components/campaigns/AudienceFields';
import { SendTest } from '../components/campaigns/ComposerFields';
import { MessageFields } from '../components/campaigns/MessageFields';
import { ScheduleFields } from '../components/campaigns/ScheduleFields';
import { type Confirming, SendConfirmation } from '../components/campaigns/SendConfirmation';
import { useTranslation } from 'react-i18next';
import { useStarterWords } from '../components/emailEditor/useStarterWords';

/**
 * The composer: a new campaign (`/campaigns/new`) or a DRAFT. Saving creates or replaces it (POST or
 * PUT /campaigns, the same body); "Send test", "Send now" and "Schedule" save first. Sending asks
 * first, naming how many contacts the audience holds now (GET /campaigns/:id/audience).
 */
export function CampaignEditor({ projectId, campaign }: { projectId: string; campaign: Campaign | null }) {
  const { t } = useTranslation('campaigns');
  const qc = useQueryClient();
  const navigate = useNavigate();
  const { draftBody } = useStarterWords();
  const [draft, setDraft] = useState<CampaignDraft>(() => draftOf(campaign, newTree(), draftBody));
  const [saved, setSaved] = useState(() => JSON.stringify(bodyOf(draftOf(campaign, newTree(), draftBody))));
  const [schedule, setSchedule] = useState<Schedule>({ kind: 'now' });
  const [confirming, setConfirming] = useState<Confirming | null>(null);
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
      const { count, estimated } = await unwrap(api.GET('/campaigns/{id}/audience', { params: { path: { id: row.id } } }));
      return { count, estimated, schedule: s };
    },
    onSuccess: setConfirming,
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
              <MessageFields projectId={projectId} draft={draft} set={set} errors={save.error} />
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
      <SendConfirmation projectId={projectId} campaignId={campaign?.id} draft={draft} confirming={confirming} onClose={() => setConfirming(null)} />
    </Stack>
  );
}
