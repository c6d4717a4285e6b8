import { useState } from 'react';
import { Badge, Button, Group, Modal, Paper, Progress, ScrollArea, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, unwrap } from '../api/client';
import { ACTIVE, percent, reportPollMs, type Campaign } from '../api/campaigns';
import { CampaignRecipients } from '../components/CampaignRecipients';
import { ErrorState, Loading } from '../components/States';
import { ChartPanel } from '../components/ChartPanel';
import { CampaignHeading } from '../components/campaigns/CampaignHeading';
import { ClickMap } from '../components/campaigns/ClickMap';
import { momentWords } from '../api/dates';

/** Pause, Resume and Cancel as the status allows; a refusal (409) shows the API's own message. */
function Controls({ projectId, campaign }: { projectId: string; campaign: Campaign }) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [cancelling, setCancelling] = useState(false);
  const path = { params: { path: { id: campaign.id } } };
  const refresh = async (row?: Campaign) => {
    if (row) qc.setQueryData(['campaign', projectId, campaign.id], row);
    await Promise.all([qc.invalidateQueries({ queryKey: ['campaign', projectId, campaign.id] }), qc.invalidateQueries({ queryKey: ['campaigns', projectId] })]);
  };
  const action = useMutation({
    meta: { success: (_d, what) => ({ pause: 'Campaign paused', resume: 'Campaign resumed', cancel: 'Campaign cancelled', unschedule: 'Campaign back to draft' })[String(what)] ?? 'Done' },
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
    meta: { success: 'Campaign duplicated' },
    mutationFn: () => unwrap(api.POST('/campaigns/{id}/duplicate', path)),
    onSuccess: async (copy) => {
      await qc.invalidateQueries({ queryKey: ['campaigns', projectId] });
      navigate(`/p/${projectId}/campaigns/${copy.id}`);
    },
  });
  const s = campaign.status;
  return (
    <Stack gap="xs" align="flex-end">
      <Group gap="xs">
        {s === 'SENDING' ? (
          <Button variant="default" onClick={() => action.mutate('pause')} loading={action.isPending && action.variables === 'pause'}>
            Pause
          </Button>
        ) : null}
        {s === 'PAUSED' ? (
          <Button onClick={() => action.mutate('resume')} loading={action.isPending && action.variables === 'resume'}>
            Resume
          </Button>
        ) : null}
        {s === 'SCHEDULED' && campaign.scheduledFor ? (
          <Button variant="default" onClick={() => action.mutate('unschedule')} loading={action.isPending && action.variables === 'unschedule'}>
            Unschedule
          </Button>
        ) : null}
        {ACTIVE.includes(s) ? (
          <Button color="red" variant="light" onClick={() => setCancelling(true)}>
            Cancel campaign
          </Button>
        ) : null}
        <Button variant="default" onClick={() => duplicate.mutate()} loading={duplicate.isPending}>
          Duplicate
        </Button>
      </Group>
      {action.error && !cancelling ? <ErrorState error={action.error} title="Refused" /> : null}
      {duplicate.error ? <ErrorState error={duplicate.error} title="Not duplicated" /> : null}
      <Modal opened={cancelling} onClose={() => setCancelling(false)} title="Cancel this campaign?">
        <Stack>
          <Text>No further email of {campaign.name} goes out. Emails already handed over stay sent. A cancelled campaign cannot be resumed; duplicate it to send again.</Text>
          {action.error ? <ErrorState error={action.error} title="Not cancelled" /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setCancelling(false)}>
              Keep sending
            </Button>
            <Button color="red" onClick={() => action.mutate('cancel')} loading={action.isPending && action.variables === 'cancel'}>
              Cancel campaign
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}

function Figure({ label, value, rate }: { label: string; value: number; rate?: number }) {
  return (
    <Paper withBorder p="sm" role="group" aria-label={label}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="xl" fw={700} data-testid={`stat-${label.toLowerCase()}`}>
        {value.toLocaleString()}
      </Text>
      {rate !== undefined ? (
        <Text size="sm" c="dimmed">
          {percent(rate)} of sent
        </Text>
      ) : null}
    </Paper>
  );
}

const bucketLabel = (t: string, interval: 'hour' | 'day') =>
  interval === 'hour' ? new Date(t).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }) : new Date(t).toLocaleDateString(undefined, { month: 'short', day: 'numeric' });

/** GET /campaigns/:id/stats, /timeseries and /links (the click map), refreshed while the campaign is active and for a week after. */
function Report({ projectId, campaign }: { projectId: string; campaign: Campaign }) {
  // Fast while sending, then on for a week: opens and clicks keep arriving after SENT.
  const poll = reportPollMs(campaign);
  const path = { params: { path: { id: campaign.id } } };
  const stats = useQuery({
    queryKey: ['campaign-stats', projectId, campaign.id],
    refetchInterval: poll,
    queryFn: () => unwrap(api.GET('/campaigns/{id}/stats', path)),
  });
  // Redrawn when the counters move (the stats poll), not on a clock of its own.
  const moved = stats.data ? `${stats.data.sent}/${stats.data.opened}/${stats.data.clicked}` : '';
  const series = useQuery({
    queryKey: ['campaign-series', projectId, campaign.id, moved],
    enabled: !!stats.data,
    placeholderData: keepPreviousData,
    queryFn: () => unwrap(api.GET('/campaigns/{id}/timeseries', path)),
  });
  const links = useQuery({ queryKey: ['campaign-links', projectId, campaign.id], refetchInterval: poll && Math.max(poll, 5000), queryFn: () => unwrap(api.GET('/campaigns/{id}/links', path)) });
  if (stats.isPending) return <Loading label="Loading the report…" />;
  if (stats.error) return <ErrorState error={stats.error} title="Report not loaded" />;
  const st = stats.data;
  return (
    <Stack>
      <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="sm" aria-label="Results">
        <Figure label="Sent" value={st.sent} />
        <Figure label="Delivered" value={st.delivered} />
        <Figure label="Opened" value={st.opened} rate={st.openRate} />
        <Figure label="Clicked" value={st.clicked} rate={st.clickRate} />
        <Figure label="Bounced" value={st.bounced} rate={st.bounceRate} />
        <Figure label="Complained" value={st.complained} />
        <Figure label="Unsubscribed" value={st.unsubscribed} />
        <Figure label="Failed" value={st.failed} />
      </SimpleGrid>
      {st.pending || st.capped ? (
        <Text size="sm" c="dimmed">
          {st.pending ? `${st.pending.toLocaleString()} waiting for their moment (quiet hours, their local time). ` : ''}
          {st.capped ? `${st.capped.toLocaleString()} skipped by the frequency cap.` : ''}
        </Text>
      ) : null}
      {st.variants?.length ? (
        <Paper withBorder p="md">
          <Title order={2} size="h4" mb="xs">
            A/B subject test
          </Title>
          <ScrollArea>
            <Table aria-label="A/B variants" miw={560}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Subject</Table.Th>
                  <Table.Th ta="right">Sent</Table.Th>
                  <Table.Th ta="right">Opened</Table.Th>
                  <Table.Th ta="right">Clicked</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {st.variants.map((v, i) => (
                  <Table.Tr key={i}>
                    <Table.Td>
                      {String.fromCharCode(65 + i)}: {v.subject}
                    </Table.Td>
                    <Table.Td ta="right">{v.sent.toLocaleString()}</Table.Td>
                    <Table.Td ta="right">
                      {v.opened.toLocaleString()} ({percent(v.sent ? v.opened / v.sent : 0)})
                    </Table.Td>
                    <Table.Td ta="right">
                      {v.clicked.toLocaleString()} ({percent(v.sent ? v.clicked / v.sent : 0)})
                    </Table.Td>
                    <Table.Td>{v.winner ? <Badge color="green">Winner</Badge> : null}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollArea>
          {!st.variants.some((v) => v.winner) ? (
            <Text size="sm" c="dimmed" mt="xs">
              No winner yet: it is chosen after the test's wait.
            </Text>
          ) : null}
        </Paper>
      ) : null}
      {series.error ? <ErrorState error={series.error} title="Chart not loaded" /> : null}
      {series.data ? (
        <ChartPanel
          title="Sends, opens and clicks over time"
          description={`Per ${series.data.interval} (your local time): emails handed over, and first opened or clicked by a person.`}
          kind="line"
          xKey="time"
          xLabel={series.data.interval === 'hour' ? 'Hour' : 'Day'}
          rows={series.data.points.map((p) => ({ time: bucketLabel(p.t, series.data.interval), sent: p.sent, opened: p.opened, clicked: p.clicked }))}
          series={[
            { key: 'sent', label: 'Sent', color: '#228be6' },
            { key: 'opened', label: 'Opened', color: '#40c057' },
            { key: 'clicked', label: 'Clicked', color: '#fab005' },
          ]}
        />
      ) : null}
      <ClickMap projectId={projectId} campaign={campaign} links={links.data} error={links.error} />
    </Stack>
  );
}

/** A campaign past DRAFT: its state, progress (sent of total, polled while active), controls and report. */
export function CampaignDetail({ projectId, campaign }: { projectId: string; campaign: Campaign }) {
  const c = campaign;
  const share = c.totalRecipients ? (100 * c.sentCount) / c.totalRecipients : 0;
  return (
    <Stack>
      <CampaignHeading
        projectId={projectId}
        campaign={c}
        summary={{ after: c.sendRatePerMinute ? ` · at most ${c.sendRatePerMinute.toLocaleString()} per minute` : '' }}
        controls={<Controls projectId={projectId} campaign={c} />}
      />
      <Paper withBorder p="md">
        <Stack gap={6}>
          <Title order={2} size="h4">
            Progress
          </Title>
          {c.status === 'SCHEDULED' ? (
            <Text>{c.scheduledFor ? `Scheduled for ${momentWords(c.scheduledFor)}.` : 'Scheduled: each contact at their local time.'}</Text>
          ) : null}
          <Progress value={share} size="lg" animated={c.status === 'SENDING'} aria-label="Sent" />
          <Text role="status" aria-live="polite" data-testid="campaign-progress">
            {c.totalRecipients || c.status !== 'SCHEDULED'
              ? `${c.sentCount.toLocaleString()} of ${c.totalRecipients.toLocaleString()} sent`
              : 'The audience is taken when sending starts.'}
            {c.status === 'PAUSED' ? ' · paused: nothing more goes out until you resume' : ''}
            {c.status === 'CANCELLED' ? ' · cancelled' : ''}
            {c.status === 'SENT' && c.sentAt ? ` · finished ${momentWords(c.sentAt)}` : ''}
          </Text>
        </Stack>
      </Paper>
      {c.status === 'SCHEDULED' && !c.sentCount ? null : <Report projectId={projectId} campaign={c} />}
      {c.sentCount > 0 || c.status === 'SENT' ? <CampaignRecipients projectId={projectId} campaign={c} /> : null}
    </Stack>
  );
}
