import { useState } from 'react';
import { Anchor, Badge, Button, Group, Modal, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { api, unwrap } from '../../api/client';
import { keys } from '../../api/queryKeys';
import { type Campaign } from '../../api/campaigns';
import { useRssRuns } from '../../api/hooks/campaigns';
import { runOutcome, scheduleText } from '../../api/rssCampaigns';
import { ErrorState } from '../States';
import { ListTable } from '../ListPage';
import { CampaignHeading } from './CampaignHeading';
import { momentWords, numberWords } from '../../api/dates';
import { useTranslation } from 'react-i18next';

/** After "Send now", the runs refresh quickly for two minutes (the run and its email take seconds), then slowly. */
const FAST_FOR_MS = 120_000;

type Action = 'activate' | 'run' | 'pause' | 'resume' | 'cancel';

/** "Activate", "Send now", "Pause", "Resume" and "Cancel campaign" as the status allows, and "Duplicate"; a refusal (409) shows the API's message. */
function RssControls({ projectId, campaign, onRun }: { projectId: string; campaign: Campaign; onRun: () => void }) {
  const { t } = useTranslation('campaigns');
  const qc = useQueryClient();
  const [cancelling, setCancelling] = useState(false);
  const path = { params: { path: { id: campaign.id } } };
  const refresh = () =>
    Promise.all([
      qc.invalidateQueries({ queryKey: keys.campaigns.one(projectId, campaign.id) }),
      qc.invalidateQueries({ queryKey: keys.campaigns.all(projectId) }),
      qc.invalidateQueries({ queryKey: keys.campaigns.runs(projectId, campaign.id) }),
    ]);
  const action = useMutation({
    meta: {
      success: (_d, what) =>
        ({
          activate: t('rss.activated'),
          run: t('rss.checking'),
          pause: t('rss.paused'),
          resume: t('rss.resumed'),
          cancel: t('rss.cancelled'),
        })[String(what)] ?? t('controls.done'),
    },
    mutationFn: async (what: Action) => {
      if (what === 'activate') await unwrap(api.POST('/campaigns/{id}/send', { ...path, body: {} }));
      else if (what === 'run') await unwrap(api.POST('/campaigns/{id}/run', path));
      else if (what === 'pause') await unwrap(api.POST('/campaigns/{id}/pause', path));
      else if (what === 'resume') await unwrap(api.POST('/campaigns/{id}/resume', path));
      else await unwrap(api.POST('/campaigns/{id}/cancel', path));
    },
    onSuccess: async (_, what) => {
      setCancelling(false);
      if (what === 'run') onRun();
      await refresh();
    },
    onError: () => refresh(),
  });
  const navigate = useNavigate();
  const duplicate = useMutation({
    meta: { success: t('controls.duplicated') },
    mutationFn: () => unwrap(api.POST('/campaigns/{id}/duplicate', path)),
    onSuccess: async (copy) => {
      await qc.invalidateQueries({ queryKey: keys.campaigns.all(projectId) });
      navigate(`/p/${projectId}/campaigns/${copy.id}`);
    },
  });
  const s = campaign.status;
  const busy = (what: Action) => action.isPending && action.variables === what;
  return (
    <Stack gap="xs" align="flex-end">
      <Group gap="xs">
        {s === 'DRAFT' ? (
          <Button onClick={() => action.mutate('activate')} loading={busy('activate')}>
            {t('rss.activate')}
          </Button>
        ) : null}
        {s !== 'CANCELLED' ? (
          <Button variant={s === 'DRAFT' ? 'default' : 'filled'} onClick={() => action.mutate('run')} loading={busy('run')}>
            {t('rss.sendNow')}
          </Button>
        ) : null}
        {s === 'SCHEDULED' ? (
          <Button variant="default" onClick={() => action.mutate('pause')} loading={busy('pause')}>
            {t('controls.pause')}
          </Button>
        ) : null}
        {s === 'PAUSED' ? (
          <Button variant="default" onClick={() => action.mutate('resume')} loading={busy('resume')}>
            {t('controls.resume')}
          </Button>
        ) : null}
        {s === 'SCHEDULED' || s === 'PAUSED' ? (
          <Button color="red" variant="light" onClick={() => setCancelling(true)}>
            {t('controls.cancel')}
          </Button>
        ) : null}
        <Button variant="default" onClick={() => duplicate.mutate()} loading={duplicate.isPending}>
          {t('controls.duplicate')}
        </Button>
      </Group>
      {duplicate.error ? <ErrorState error={duplicate.error} title={t('controls.notDuplicated')} /> : null}
      {action.isSuccess && action.variables === 'run' ? (
        <Text size="sm" c="green" role="status">
          {t('rss.runsNow')}
        </Text>
      ) : null}
      {action.error && !cancelling ? <ErrorState error={action.error} title={t('controls.refused')} /> : null}
      <Modal opened={cancelling} onClose={() => setCancelling(false)} title={t('controls.cancelTitle')}>
        <Stack>
          <Text>{t('rss.cancelText', { name: campaign.name })}</Text>
          {action.error ? <ErrorState error={action.error} title={t('controls.notCancelled')} /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setCancelling(false)}>
              {t('rss.keepIt')}
            </Button>
            <Button color="red" onClick={() => action.mutate('cancel')} loading={busy('cancel')}>
              {t('controls.cancel')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}

/** GET /campaigns/:id/runs: when each run happened, what it found and how many emails it sent. */
function Runs({ projectId, campaign, fastUntil }: { projectId: string; campaign: Campaign; fastUntil: number }) {
  const { t } = useTranslation('campaigns');
  const runs = useRssRuns(projectId, campaign, fastUntil);
  return (
    <Paper withBorder p="md">
      <Title order={2} size="h4" mb="xs">
        {t('rss.runs')}
      </Title>
      <ListTable
        query={runs}
        label={t('rss.runs')}
        loadingLabel={t('rss.loadingRuns')}
        errorTitle={t('rss.runsNotLoaded')}
        framed={false}
        striped={false}
        miw={640}
        head={
          <>
            <Table.Th>{t('rss.when')}</Table.Th>
            <Table.Th>{t('rss.outcome')}</Table.Th>
            <Table.Th>{t('rss.items')}</Table.Th>
            <Table.Th ta="right">{t('rss.emailsSent')}</Table.Th>
          </>
        }
        row={(r) => (
          <Table.Tr key={r.id} data-testid="rss-run">
            <Table.Td>{momentWords(r.startedAt)}</Table.Td>
            <Table.Td>
              <Text size="sm" c={r.status === 'FAILED' ? 'red' : undefined}>
                {runOutcome(r)}
              </Text>
            </Table.Td>
            <Table.Td>
              {r.items.length ? (
                <Stack gap={2}>
                  {r.items.map((item, i) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: a run's items are fixed once recorded; two may share a link
                    <Text key={i} size="sm" lineClamp={1}>
                      {item.title || item.link}
                    </Text>
                  ))}
                </Stack>
              ) : (
                <Text size="sm" c="dimmed">
                  —
                </Text>
              )}
            </Table.Td>
            <Table.Td ta="right">
              {r.sentCampaignId ? (
                <Anchor component={Link} to={`/p/${projectId}/campaigns/${r.sentCampaignId}`} data-testid="rss-run-sent">
                  {numberWords(r.emailsSent)}
                </Anchor>
              ) : (
                '0'
              )}
            </Table.Td>
          </Table.Tr>
        )}
        empty={t('rss.noRun')}
      />
    </Paper>
  );
}

/** An RSS campaign's page, in any status: its feed and schedule, its controls and its runs. */
export function RssCampaignDetail({ projectId, campaign }: { projectId: string; campaign: Campaign }) {
  const { t } = useTranslation('campaigns');
  const c = campaign;
  const [fastUntil, setFastUntil] = useState(0);
  // An RSS campaign is never SENDING nor SENT itself (its runs send one-off campaigns).
  const state = c.status === 'DRAFT' || c.status === 'SCHEDULED' || c.status === 'PAUSED' || c.status === 'CANCELLED' ? t(`rss.state.${c.status}`) : '';
  return (
    <Stack>
      <CampaignHeading
        projectId={projectId}
        campaign={c}
        badges={
          <Badge variant="outline" color="gray">
            {t('rssBadge')}
          </Badge>
        }
        summary={{ before: c.schedule ? `${scheduleText(c.schedule)} · ` : '' }}
        controls={<RssControls projectId={projectId} campaign={c} onRun={() => setFastUntil(Date.now() + FAST_FOR_MS)} />}
      />
      <Paper withBorder p="md">
        <Stack gap={6}>
          <Title order={2} size="h4">
            {t('rss.feed')}
          </Title>
          <Text style={{ wordBreak: 'break-all' }} data-testid="rss-feed-url">
            {c.feedUrl}
          </Text>
          <Text size="sm" role="status">
            {state}
          </Text>
        </Stack>
      </Paper>
      <Runs projectId={projectId} campaign={c} fastUntil={fastUntil} />
    </Stack>
  );
}
