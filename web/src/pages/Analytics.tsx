import { useState } from 'react';
import { Group, Paper, SegmentedControl, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { type Metric, useAnalyticsSeries, useTopCampaigns, useTopEvents } from '../api/hooks/analytics';
import { useCurrentProject } from '../api/project';
import { ErrorState, Loading } from '../components/States';
import { ChartPanel } from '../components/ChartPanel';
import { CampaignRates } from '../components/CampaignRates';
import { dayWords, numberWords } from '../api/dates';
import { useTranslation } from 'react-i18next';

const METRICS = [
  { key: 'sent', color: '#228be6' },
  { key: 'delivered', color: '#15aabf' },
  { key: 'opened', color: '#40c057' },
  { key: 'clicked', color: '#fab005' },
  { key: 'bounced', color: '#fa5252' },
  { key: 'complained', color: '#be4bdb' },
] as const satisfies readonly { key: Metric; color: string }[];

const WINDOWS = ['7', '30', '90'] as const;

/**
 * The project's overview: GET /analytics/timeseries per metric (one call each, per UTC day), and the
 * top campaigns and events of the same window; every chart has a table view.
 */
export default function Analytics() {
  const { t } = useTranslation('data');
  const { projectId } = useCurrentProject();
  const [days, setDays] = useState('30');
  const series = useAnalyticsSeries(
    projectId,
    METRICS.map((m) => m.key),
    days,
  );
  const campaigns = useTopCampaigns(projectId, days);
  const events = useTopEvents(projectId, days);

  const seriesError = series.find((q) => q.error)?.error;
  const seriesReady = series.every((q) => q.data);
  // One row per day: the metrics' points share their buckets (same window and interval).
  const rows = seriesReady
    ? series[0].data!.points.map((p, i) => ({
        day: dayWords(p.t, { zone: 'UTC', year: false }),
        ...Object.fromEntries(METRICS.map((m, j) => [m.key, series[j].data!.points[i]?.count ?? 0])),
      }))
    : [];
  const label = (m: (typeof METRICS)[number]['key']) => t(`analytics.metrics.${m}`);
  const totals = seriesReady ? Object.fromEntries(METRICS.map((m, j) => [m.key, series[j].data!.total])) : null;

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          {t('analytics.title')}
        </Title>
        <SegmentedControl
          aria-label={t('analytics.window')}
          value={days}
          onChange={setDays}
          data={WINDOWS.map((w) => ({ value: w, label: t(`analytics.windows.${w}`) }))}
        />
      </Group>
      {totals ? (
        <SimpleGrid cols={{ base: 2, sm: 3, md: 6 }} spacing="sm" aria-label={t('analytics.totals')}>
          {METRICS.map((m) => (
            <Paper key={m.key} withBorder p="sm" role="group" aria-label={label(m.key)}>
              <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
                {label(m.key)}
              </Text>
              <Text size="xl" fw={700} data-testid={`total-${m.key}`}>
                {numberWords(totals[m.key])}
              </Text>
            </Paper>
          ))}
        </SimpleGrid>
      ) : null}
      {seriesError ? <ErrorState error={seriesError} title={t('analytics.seriesNotLoaded')} /> : null}
      {!seriesReady && !seriesError ? <Loading label={t('analytics.counting')} /> : null}
      {seriesReady ? (
        <ChartPanel
          title={t('analytics.overTime')}
          description={t('analytics.overTimeHint')}
          kind="line"
          xKey="day"
          xLabel={t('analytics.day')}
          rows={rows}
          series={METRICS.map((m) => ({ ...m, label: label(m.key) }))}
        />
      ) : null}
      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
        <Stack gap="xs">
          {campaigns.isPending ? <Loading /> : null}
          {campaigns.error ? <ErrorState error={campaigns.error} title={t('analytics.campaignsNotLoaded')} /> : null}
          {campaigns.data ? (
            <ChartPanel
              title={t('analytics.topCampaigns')}
              description={t('analytics.topCampaignsHint')}
              empty={t('analytics.noCampaigns')}
              kind="bar"
              xKey="name"
              xLabel={t('analytics.campaign')}
              rows={campaigns.data.data.map((c) => ({ name: c.name, sent: c.sent as number, opened: c.opened as number, clicked: c.clicked as number }))}
              series={[
                { key: 'sent', label: label('sent'), color: '#228be6' },
                { key: 'opened', label: label('opened'), color: '#40c057' },
                { key: 'clicked', label: label('clicked'), color: '#fab005' },
              ]}
            />
          ) : null}
        </Stack>
        <Stack gap="xs">
          {events.isPending ? <Loading /> : null}
          {events.error ? <ErrorState error={events.error} title={t('analytics.eventsNotLoaded')} /> : null}
          {events.data ? (
            <ChartPanel
              title={t('analytics.topEvents')}
              description={t('analytics.topEventsHint')}
              empty={t('analytics.noEvents')}
              kind="bar"
              xKey="name"
              xLabel={t('analytics.event')}
              rows={events.data.data.map((e) => ({ name: e.name, count: e.count, contacts: e.uniqueContacts }))}
              series={[
                { key: 'count', label: t('analytics.events'), color: '#7950f2' },
                { key: 'contacts', label: t('analytics.contacts'), color: '#20c997' },
              ]}
            />
          ) : null}
        </Stack>
      </SimpleGrid>
      {/* Full width: each rate's column says what it counts. */}
      {campaigns.data ? <CampaignRates projectId={projectId} campaigns={campaigns.data.data} /> : null}
    </Stack>
  );
}
