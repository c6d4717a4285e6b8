import { useState } from 'react';
import { Anchor, Group, Paper, ScrollArea, SegmentedControl, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useQueries, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import { useCurrentProject } from '../api/project';
import { percent } from '../api/campaigns';
import { ErrorState, Loading } from '../components/States';
import { ChartPanel } from '../components/ChartPanel';
import { dayWords, numberWords } from '../api/dates';

const METRICS = [
  { key: 'sent', label: 'Sent', color: '#228be6' },
  { key: 'delivered', label: 'Delivered', color: '#15aabf' },
  { key: 'opened', label: 'Opened', color: '#40c057' },
  { key: 'clicked', label: 'Clicked', color: '#fab005' },
  { key: 'bounced', label: 'Bounced', color: '#fa5252' },
  { key: 'complained', label: 'Complained', color: '#be4bdb' },
] as const;
type Metric = (typeof METRICS)[number]['key'];

const WINDOWS = [
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
];

/**
 * The project's overview: GET /analytics/timeseries per metric (one call each, per UTC day), and the
 * top campaigns and events of the same window; every chart has a table view.
 */
export default function Analytics() {
  const { projectId } = useCurrentProject();
  const [days, setDays] = useState('30');
  const series = useQueries({
    queries: METRICS.map((m) => ({
      queryKey: ['analytics-series', projectId, m.key, days],
      queryFn: () => {
        const to = new Date();
        const from = new Date(to.getTime() - Number(days) * 86_400_000);
        return unwrap(api.GET('/analytics/timeseries', { params: { query: { metric: m.key as Metric, interval: 'day', from: from.toISOString(), to: to.toISOString() } } }));
      },
    })),
  });
  const campaigns = useQuery({
    queryKey: ['analytics-top-campaigns', projectId, days],
    queryFn: () => unwrap(api.GET('/analytics/top-campaigns', { params: { query: { days: Number(days), sort: 'sent', limit: 10 } } })),
  });
  const events = useQuery({
    queryKey: ['analytics-top-events', projectId, days],
    queryFn: () => unwrap(api.GET('/analytics/top-events', { params: { query: { days: Number(days), limit: 10 } } })),
  });

  const seriesError = series.find((q) => q.error)?.error;
  const seriesReady = series.every((q) => q.data);
  // One row per day: the metrics' points share their buckets (same window and interval).
  const rows = seriesReady
    ? series[0].data!.points.map((p, i) => ({
        day: dayWords(p.t, { zone: 'UTC', year: false }),
        ...Object.fromEntries(METRICS.map((m, j) => [m.key, series[j].data!.points[i]?.count ?? 0])),
      }))
    : [];
  const totals = seriesReady ? Object.fromEntries(METRICS.map((m, j) => [m.key, series[j].data!.total])) : null;

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Analytics
        </Title>
        <SegmentedControl aria-label="Window" value={days} onChange={setDays} data={WINDOWS} />
      </Group>
      {totals ? (
        <SimpleGrid cols={{ base: 2, sm: 3, md: 6 }} spacing="sm" aria-label="Totals">
          {METRICS.map((m) => (
            <Paper key={m.key} withBorder p="sm" role="group" aria-label={m.label}>
              <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
                {m.label}
              </Text>
              <Text size="xl" fw={700} data-testid={`total-${m.key}`}>
                {numberWords(totals[m.key])}
              </Text>
            </Paper>
          ))}
        </SimpleGrid>
      ) : null}
      {seriesError ? <ErrorState error={seriesError} title="Time series not loaded" /> : null}
      {!seriesReady && !seriesError ? <Loading label="Counting…" /> : null}
      {seriesReady ? (
        <ChartPanel
          title="Email over time"
          description="Per UTC day. Opens and clicks count every recorded one (repeats included); a campaign's report counts each email once."
          kind="line"
          xKey="day"
          xLabel="Day"
          rows={rows}
          series={METRICS.map((m) => ({ ...m }))}
        />
      ) : null}
      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
        <Stack gap="xs">
          {campaigns.isPending ? <Loading /> : null}
          {campaigns.error ? <ErrorState error={campaigns.error} title="Top campaigns not loaded" /> : null}
          {campaigns.data ? (
            <>
              <ChartPanel
                title="Top campaigns"
                description="Campaigns that started sending in the window, by emails sent."
                empty="No campaign started sending in this window."
                kind="bar"
                xKey="name"
                xLabel="Campaign"
                rows={campaigns.data.data.map((c) => ({ name: c.name, sent: c.sent as number, opened: c.opened as number, clicked: c.clicked as number }))}
                series={[
                  { key: 'sent', label: 'Sent', color: '#228be6' },
                  { key: 'opened', label: 'Opened', color: '#40c057' },
                  { key: 'clicked', label: 'Clicked', color: '#fab005' },
                ]}
              />
              {campaigns.data.data.length ? (
                <Paper withBorder>
                  <ScrollArea>
                    <Table aria-label="Campaign rates" miw={460}>
                      <Table.Thead>
                        <Table.Tr>
                          <Table.Th>Campaign</Table.Th>
                          <Table.Th ta="right">Open rate</Table.Th>
                          <Table.Th ta="right">Click rate</Table.Th>
                          <Table.Th ta="right">Bounce rate</Table.Th>
                        </Table.Tr>
                      </Table.Thead>
                      <Table.Tbody>
                        {campaigns.data.data.map((c) => (
                          <Table.Tr key={c.id}>
                            <Table.Td>
                              <Anchor component={Link} to={`/p/${projectId}/campaigns/${c.id}`}>
                                {c.name}
                              </Anchor>
                            </Table.Td>
                            <Table.Td ta="right">{percent(c.openRate as number)}</Table.Td>
                            <Table.Td ta="right">{percent(c.clickRate as number)}</Table.Td>
                            <Table.Td ta="right">{percent(c.bounceRate as number)}</Table.Td>
                          </Table.Tr>
                        ))}
                      </Table.Tbody>
                    </Table>
                  </ScrollArea>
                </Paper>
              ) : null}
            </>
          ) : null}
        </Stack>
        <Stack gap="xs">
          {events.isPending ? <Loading /> : null}
          {events.error ? <ErrorState error={events.error} title="Top events not loaded" /> : null}
          {events.data ? (
            <ChartPanel
              title="Top events"
              description="Your own events (not the email lifecycle or subscription changes), most frequent first."
              empty="No event tracked in this window."
              kind="bar"
              xKey="name"
              xLabel="Event"
              rows={events.data.data.map((e) => ({ name: e.name, count: e.count, contacts: e.uniqueContacts }))}
              series={[
                { key: 'count', label: 'Events', color: '#7950f2' },
                { key: 'contacts', label: 'Contacts', color: '#20c997' },
              ]}
            />
          ) : null}
        </Stack>
      </SimpleGrid>
    </Stack>
  );
}
