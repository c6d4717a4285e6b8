import { useState } from 'react';
import { Badge, Button, Group, Modal, Paper, Progress, ScrollArea, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, unwrap } from '../api/client';
import { keys } from '../api/queryKeys';
import { ACTIVE, percent, type Campaign } from '../api/campaigns';
import { useCampaignSeries, useCampaignStats } from '../api/hooks/campaigns';
import { CampaignRecipients } from '../components/CampaignRecipients';
import { ErrorState, Loading } from '../components/States';
import { ChartPanel } from '../components/ChartPanel';
import { CampaignHeading } from '../components/campaigns/CampaignHeading';
import { ClickMap } from '../components/campaigns/ClickMap';
import { momentWords, numberWords } from '../api/dates';
import { intlLocale } from '../i18n';
import { useTranslation } from 'react-i18next';

/** Pause, Resume and Cancel as the status allows; a refusal (409) shows the API's own message. */
function Controls({ projectId, campaign }: { projectId: string; campaign: Campaign }) {
  const { t } = useTranslation('campaigns');
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [cancelling, setCancelling] = useState(false);
  const path = { params: { path: { id: campaign.id } } };
  const refresh = async (row?: Campaign) => {
    if (row) qc.setQueryData(keys.campaigns.one(projectId, campaign.id), row);
    await Promise.all([
      qc.invalidateQueries({ queryKey: keys.campaigns.one(projectId, campaign.id) }),
      qc.invalidateQueries({ queryKey: keys.campaigns.all(projectId) }),
    ]);
  };
  const action = useMutation({
    meta: {
      success: (_d, what) =>
        ({ pause: t('controls.paused'), resume: t('controls.resumed'), cancel: t('controls.cancelled'), unschedule: t('controls.unscheduled') })[
          String(what)
        ] ?? t('controls.done'),
    },
    mutationFn: (what: 'pause' | 'resume' | 'cancel' | 'unschedule') =>
      what === 'pause'
        ? unwrap(api.POST('/campaigns/{id}/pause', path))
        : what === 'resume'
          ? unwrap(api.POST('/campaigns/{id}/resume', path))
          : what === 'unschedule'
            ? unwrap(api.POST('/campaigns/{id}/unschedule', path))
            : unwrap(api.POST('/campaigns/{id}/cancel', path)),
    onSuccess: async (row) => {
      setCancelling(false);
      await refresh(row);
    },
    // The state changed under us (409): show the campaign as it is now, with the message.
    onError: () => refresh(),
  });
  const duplicate = useMutation({
    meta: { success: t('controls.duplicated') },
    mutationFn: () => unwrap(api.POST('/campaigns/{id}/duplicate', path)),
    onSuccess: async (copy) => {
      await qc.invalidateQueries({ queryKey: keys.campaigns.all(projectId) });
      navigate(`/p/${projectId}/campaigns/${copy.id}`);
    },
  });
  const s = campaign.status;
  return (
    <Stack gap="xs" align="flex-end">
      <Group gap="xs">
        {s === 'SENDING' ? (
          <Button variant="default" onClick={() => action.mutate('pause')} loading={action.isPending && action.variables === 'pause'}>
            {t('controls.pause')}
          </Button>
        ) : null}
        {s === 'PAUSED' ? (
          <Button onClick={() => action.mutate('resume')} loading={action.isPending && action.variables === 'resume'}>
            {t('controls.resume')}
          </Button>
        ) : null}
        {s === 'SCHEDULED' && campaign.scheduledFor ? (
          <Button variant="default" onClick={() => action.mutate('unschedule')} loading={action.isPending && action.variables === 'unschedule'}>
            {t('controls.unschedule')}
          </Button>
        ) : null}
        {ACTIVE.includes(s) ? (
          <Button color="red" variant="light" onClick={() => setCancelling(true)}>
            {t('controls.cancel')}
          </Button>
        ) : null}
        <Button variant="default" onClick={() => duplicate.mutate()} loading={duplicate.isPending}>
          {t('controls.duplicate')}
        </Button>
      </Group>
      {action.error && !cancelling ? <ErrorState error={action.error} title={t('controls.refused')} /> : null}
      {duplicate.error ? <ErrorState error={duplicate.error} title={t('controls.notDuplicated')} /> : null}
      <Modal opened={cancelling} onClose={() => setCancelling(false)} title={t('controls.cancelTitle')}>
        <Stack>
          <Text>{t('controls.cancelText', { name: campaign.name })}</Text>
          {action.error ? <ErrorState error={action.error} title={t('controls.notCancelled')} /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setCancelling(false)}>
              {t('controls.keepSending')}
            </Button>
            <Button color="red" onClick={() => action.mutate('cancel')} loading={action.isPending && action.variables === 'cancel'}>
              {t('controls.cancel')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}

/** One of the report's numbers; `name` (English, lower case) names it for tests whatever the language. */
function Figure({ name, label, value, rate }: { name: string; label: string; value: number; rate?: number }) {
  const { t } = useTranslation('campaigns');
  return (
    <Paper withBorder p="sm" role="group" aria-label={label}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="xl" fw={700} data-testid={`stat-${name}`}>
        {numberWords(value)}
      </Text>
      {rate !== undefined ? (
        <Text size="sm" c="dimmed">
          {t('report.ofSent', { percent: percent(rate) })}
        </Text>
      ) : null}
    </Paper>
  );
}

const bucketLabel = (t: string, interval: 'hour' | 'day') =>
  interval === 'hour'
    ? new Date(t).toLocaleString(intlLocale(), { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })
    : new Date(t).toLocaleDateString(intlLocale(), { month: 'short', day: 'numeric' });

/** GET /campaigns/:id/stats and /timeseries, then the click map (and its /links), refreshed while the campaign is active and for a week after. */
function Report({ projectId, campaign }: { projectId: string; campaign: Campaign }) {
  const { t } = useTranslation('campaigns');
  // Fast while sending, then on for a week: opens and clicks keep arriving after SENT.
  const stats = useCampaignStats(projectId, campaign);
  const series = useCampaignSeries(projectId, campaign.id, stats.data);
  if (stats.isPending) return <Loading label={t('report.loading')} />;
  if (stats.error) return <ErrorState error={stats.error} title={t('report.notLoaded')} />;
  const st = stats.data;
  return (
    <Stack>
      <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="sm" aria-label={t('report.results')}>
        <Figure name="sent" label={t('report.sent')} value={st.sent} />
        <Figure name="delivered" label={t('report.delivered')} value={st.delivered} />
        <Figure name="opened" label={t('report.opened')} value={st.opened} rate={st.openRate} />
        <Figure name="clicked" label={t('report.clicked')} value={st.clicked} rate={st.clickRate} />
        <Figure name="bounced" label={t('report.bounced')} value={st.bounced} rate={st.bounceRate} />
        <Figure name="complained" label={t('report.complained')} value={st.complained} />
        <Figure name="unsubscribed" label={t('report.unsubscribed')} value={st.unsubscribed} />
        <Figure name="failed" label={t('report.failed')} value={st.failed} />
      </SimpleGrid>
      {st.pending || st.capped ? (
        <Text size="sm" c="dimmed">
          {[st.pending ? t('report.pending', { n: numberWords(st.pending) }) : '', st.capped ? t('report.capped', { n: numberWords(st.capped) }) : '']
            .filter(Boolean)
            .join(' ')}
        </Text>
      ) : null}
      {st.variants?.length ? (
        <Paper withBorder p="md">
          <Title order={2} size="h4" mb="xs">
            {t('report.abTitle')}
          </Title>
          <ScrollArea>
            <Table aria-label={t('report.abTable')} miw={560}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('report.subject')}</Table.Th>
                  <Table.Th ta="right">{t('report.sent')}</Table.Th>
                  <Table.Th ta="right">{t('report.opened')}</Table.Th>
                  <Table.Th ta="right">{t('report.clicked')}</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {st.variants.map((v, i) => (
                  <Table.Tr key={i}>
                    <Table.Td>
                      {String.fromCharCode(65 + i)}: {v.subject}
                    </Table.Td>
                    <Table.Td ta="right">{numberWords(v.sent)}</Table.Td>
                    <Table.Td ta="right">
                      {numberWords(v.opened)} ({percent(v.sent ? v.opened / v.sent : 0)})
                    </Table.Td>
                    <Table.Td ta="right">
                      {numberWords(v.clicked)} ({percent(v.sent ? v.clicked / v.sent : 0)})
                    </Table.Td>
                    <Table.Td>{v.winner ? <Badge color="green">{t('report.winner')}</Badge> : null}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollArea>
          {!st.variants.some((v) => v.winner) ? (
            <Text size="sm" c="dimmed" mt="xs">
              {t('report.noWinner')}
            </Text>
          ) : null}
        </Paper>
      ) : null}
      {series.error ? <ErrorState error={series.error} title={t('report.chartNotLoaded')} /> : null}
      {series.data ? (
        <ChartPanel
          title={t('report.chartTitle')}
          description={series.data.interval === 'hour' ? t('report.perHour') : t('report.perDay')}
          kind="line"
          xKey="time"
          xLabel={series.data.interval === 'hour' ? t('report.hour') : t('report.day')}
          rows={series.data.points.map((p) => ({ time: bucketLabel(p.t, series.data.interval), sent: p.sent, opened: p.opened, clicked: p.clicked }))}
          series={[
            { key: 'sent', label: t('report.sent'), color: '#228be6' },
            { key: 'opened', label: t('report.opened'), color: '#40c057' },
            { key: 'clicked', label: t('report.clicked'), color: '#fab005' },
          ]}
        />
      ) : null}
      <ClickMap projectId={projectId} campaign={campaign} />
    </Stack>
  );
}

/** A campaign past DRAFT: its state, progress (sent of total, polled while active), controls and report. */
export function CampaignDetail({ projectId, campaign }: { projectId: string; campaign: Campaign }) {
  const { t } = useTranslation('campaigns');
  const c = campaign;
  const share = c.totalRecipients ? (100 * c.sentCount) / c.totalRecipients : 0;
  return (
    <Stack>
      <CampaignHeading
        projectId={projectId}
        campaign={c}
        summary={{ after: c.sendRatePerMinute ? ` · ${t('detail.rate', { n: numberWords(c.sendRatePerMinute) })}` : '' }}
        controls={<Controls projectId={projectId} campaign={c} />}
      />
      <Paper withBorder p="md">
        <Stack gap={6}>
          <Title order={2} size="h4">
            {t('detail.progress')}
          </Title>
          {c.status === 'SCHEDULED' ? (
            <Text>{c.scheduledFor ? t('detail.scheduledFor', { when: momentWords(c.scheduledFor) }) : t('detail.scheduledLocal')}</Text>
          ) : null}
          <Progress value={share} size="lg" animated={c.status === 'SENDING'} aria-label={t('detail.sentBar')} />
          <Text role="status" aria-live="polite" data-testid="campaign-progress">
            {[
              c.totalRecipients || c.status !== 'SCHEDULED'
                ? t('detail.sentOf', { sent: numberWords(c.sentCount), total: numberWords(c.totalRecipients) })
                : t('detail.audienceLater'),
              c.status === 'PAUSED' ? t('detail.paused') : '',
              c.status === 'CANCELLED' ? t('detail.cancelled') : '',
              c.status === 'SENT' && c.sentAt ? t('detail.finished', { when: momentWords(c.sentAt) }) : '',
            ]
              .filter(Boolean)
              .join(' · ')}
          </Text>
        </Stack>
      </Paper>
      {c.status === 'SCHEDULED' && !c.sentCount ? null : <Report projectId={projectId} campaign={c} />}
      {c.sentCount > 0 || c.status === 'SENT' ? <CampaignRecipients projectId={projectId} campaign={c} /> : null}
    </Stack>
  );
}
