import { useEffect, useState } from 'react';
import { Anchor, Badge, Button, Group, Progress, Table, Tabs, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import { useCurrentProject } from '../api/project';
import { ACTIVE, CAMPAIGN_STATUSES, STATUS_COLOR, type CampaignStatus } from '../api/campaigns';
import { CountAndPages, ListPage, ListTable } from '../components/ListPage';
import { scheduleText, type RssSchedule } from '../api/rssCampaigns';
import { momentWords, numberWords } from '../api/dates';

const PAGE_SIZE = 20;
const label = (s: string) => s.charAt(0) + s.slice(1).toLowerCase();

/** GET /campaigns: page-paginated, one tab per status (PAUSED included), searched on name, subject and sender. */
export default function Campaigns() {
  const { projectId } = useCurrentProject();
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 300);
  const [status, setStatus] = useState<string>('all');
  const [page, setPage] = useState(1);
  useEffect(() => setPage(1), [debounced, status]);
  const list = useQuery({
    queryKey: ['campaigns', projectId, debounced, status, page],
    placeholderData: keepPreviousData,
    // A sending campaign's progress moves: refresh while one is listed.
    refetchInterval: (q) => (q.state.data?.data.some((c) => ACTIVE.includes(c.status)) ? 3000 : false),
    queryFn: () =>
      unwrap(
        api.GET('/campaigns', {
          params: { query: { page, pageSize: PAGE_SIZE, search: debounced || undefined, status: status === 'all' ? undefined : (status as CampaignStatus), sort: 'createdAt', dir: 'desc' } },
        }),
      ),
  });
  const filtered = !!debounced || status !== 'all';
  return (
    <ListPage
      title="Campaigns"
      action={
        <Group gap="xs">
          <Button component={Link} to={`/p/${projectId}/campaigns/new?kind=rss`} variant="default">
            New RSS campaign
          </Button>
          <Button component={Link} to={`/p/${projectId}/campaigns/new`}>
            New campaign
          </Button>
        </Group>
      }
    >
      <Tabs value={status} onChange={(v) => setStatus(v ?? 'all')} aria-label="Status">
        <Tabs.List>
          <Tabs.Tab value="all">All</Tabs.Tab>
          {CAMPAIGN_STATUSES.map((s) => (
            <Tabs.Tab key={s} value={s}>
              {label(s)}
            </Tabs.Tab>
          ))}
        </Tabs.List>
      </Tabs>
      <TextInput label="Search" placeholder="Name, subject or sender" type="search" value={search} onChange={(e) => setSearch(e.currentTarget.value)} w={300} />
      <ListTable
        query={list}
        label="Campaigns"
        highlightOnHover
        miw={760}
        head={
          <>
            <Table.Th>Name</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Progress</Table.Th>
            <Table.Th ta="right">Opened</Table.Th>
            <Table.Th ta="right">Clicked</Table.Th>
            <Table.Th>When</Table.Th>
          </>
        }
        row={(c) => (
          <Table.Tr key={c.id}>
            <Table.Td>
              <Anchor component={Link} to={`/p/${projectId}/campaigns/${c.id}`}>
                {c.name}
              </Anchor>
              <Text size="xs" c="dimmed" lineClamp={1}>
                {c.subject}
              </Text>
            </Table.Td>
            <Table.Td>
              <Badge variant="light" color={STATUS_COLOR[c.status]}>
                {c.status}
              </Badge>
              {c.kind === 'RSS' ? (
                <Badge variant="outline" color="gray" ml={4}>
                  RSS
                </Badge>
              ) : null}
            </Table.Td>
            <Table.Td miw={150}>
              {c.totalRecipients ? (
                <>
                  <Progress value={(100 * c.sentCount) / c.totalRecipients} size="sm" aria-label={`${c.name}: sent`} />
                  <Text size="xs" c="dimmed">
                    {numberWords(c.sentCount)} of {numberWords(c.totalRecipients)} sent
                  </Text>
                </>
              ) : (
                <Text size="xs" c="dimmed">
                  —
                </Text>
              )}
            </Table.Td>
            <Table.Td ta="right">{numberWords(c.openedCount)}</Table.Td>
            <Table.Td ta="right">{numberWords(c.clickedCount)}</Table.Td>
            <Table.Td>
              <Text size="sm">{whenOf(c)}</Text>
            </Table.Td>
          </Table.Tr>
        )}
        empty={filtered ? 'No campaign matches.' : 'No campaigns yet: write one, pick its audience and send it now or later.'}
        footer={(d) => <CountAndPages count={
              <>
                {d.total} campaign{d.total === 1 ? '' : 's'}
              </>
            } page={page} totalPages={d.totalPages} onPage={setPage} />}
      />
    </ListPage>
  );
}

function whenOf(c: { status: CampaignStatus; scheduledFor: string | null; sentAt: string | null; createdAt: string; schedule?: RssSchedule }) {
  if (c.schedule) return scheduleText(c.schedule);
  if (c.status === 'SCHEDULED' && c.scheduledFor) return `Scheduled for ${momentWords(c.scheduledFor)}`;
  if (c.sentAt) return `Sent ${momentWords(c.sentAt)}`;
  return `Created ${momentWords(c.createdAt)}`;
}
