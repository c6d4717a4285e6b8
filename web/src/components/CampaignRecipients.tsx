import { useState } from 'react';
import { Button, Group, Paper, ScrollArea, SegmentedControl, Stack, Table, Text, Title } from '@mantine/core';
import { useInfiniteQuery } from '@tanstack/react-query';
import { api, ApiError, forProject, type ResponseOf, unwrap } from '../api/client';
import { type Campaign, reportPollMs } from '../api/campaigns';
import { ErrorState, Loading } from './States';
import { momentWords } from '../api/dates';

/** The JSON page (the same route also answers CSV, which this screen downloads separately). */
type RecipientPage = ResponseOf<'/campaigns/{id}/recipients', 'get'>;
type Status = 'delivered' | 'opened' | 'clicked' | 'bounced' | 'complained' | 'unsubscribed';
const FILTERS: { value: Status | 'all'; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'delivered', label: 'Delivered' },
  { value: 'opened', label: 'Opened' },
  { value: 'clicked', label: 'Clicked' },
  { value: 'bounced', label: 'Bounced' },
  { value: 'complained', label: 'Complained' },
  { value: 'unsubscribed', label: 'Unsubscribed' },
];

const when = (t: string | null) => (t ? momentWords(t) : '—');

/**
 * The CSV of the current filter, fetched with the dashboard's cookie and project header (a plain
 * link could not carry X-Project-Id) and handed to the browser as a download.
 */
async function downloadCsv(projectId: string, campaign: Campaign, status: Status | undefined) {
  const query = new URLSearchParams({ format: 'csv', ...(status ? { status } : {}) });
  const res = await fetch(`/campaigns/${campaign.id}/recipients?${query}`, { headers: forProject(projectId), credentials: 'same-origin' });
  if (!res.ok) throw new ApiError(res.status, `The export failed (${res.status})`);
  const url = URL.createObjectURL(await res.blob());
  const a = Object.assign(document.createElement('a'), { href: url, download: `${campaign.name}-recipients${status ? `-${status}` : ''}.csv` });
  a.click();
  URL.revokeObjectURL(url);
}

/** "Recipients": who got the campaign and what they did with it, filterable, paged, exportable. */
export function CampaignRecipients({ projectId, campaign }: { projectId: string; campaign: Campaign }) {
  const [filter, setFilter] = useState<Status | 'all'>('all');
  const [exportError, setExportError] = useState<unknown>(null);
  const [exporting, setExporting] = useState(false);
  const status = filter === 'all' ? undefined : filter;
  const list = useInfiniteQuery({
    queryKey: ['campaign-recipients', projectId, campaign.id, filter],
    initialPageParam: undefined as string | undefined,
    // Only the first page refreshes on its own: pages the person loaded stay as they read them.
    refetchInterval: reportPollMs(campaign),
    queryFn: async ({ pageParam }) =>
      (await unwrap(
        api.GET('/campaigns/{id}/recipients', {
          params: { path: { id: campaign.id }, query: { limit: 50, format: 'json', ...(status ? { status } : {}), ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      )) as RecipientPage,
    getNextPageParam: (last) => (last.hasMore && last.cursor ? last.cursor : undefined),
  });
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  const exportCsv = async () => {
    setExporting(true);
    setExportError(null);
    try {
      await downloadCsv(projectId, campaign, status);
    } catch (err) {
      setExportError(err);
    } finally {
      setExporting(false);
    }
  };
  return (
    <Paper withBorder p="md" role="region" aria-label="Recipients">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h4">
            Recipients
          </Title>
          <Button variant="default" onClick={exportCsv} loading={exporting}>
            Export CSV
          </Button>
        </Group>
        <SegmentedControl aria-label="Show recipients" value={filter} onChange={(v) => setFilter(v as Status | 'all')} data={FILTERS} />
        {exportError ? <ErrorState error={exportError} title="Not exported" /> : null}
        {list.isPending ? (
          <Loading label="Loading recipients…" />
        ) : list.error ? (
          <ErrorState error={list.error} title="Recipients not loaded" />
        ) : rows.length === 0 ? (
          <Text size="sm" c="dimmed">
            {filter === 'all' ? 'Nobody has been sent this campaign yet.' : `No recipient is ${filter} yet.`}
          </Text>
        ) : (
          <ScrollArea>
            <Table striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Email</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Delivered</Table.Th>
                  <Table.Th>First opened</Table.Th>
                  <Table.Th>First clicked</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((r) => (
                  <Table.Tr key={r.emailId}>
                    <Table.Td>{r.email}</Table.Td>
                    <Table.Td>{r.bouncedAt ? 'Bounced' : r.complainedAt ? 'Complained' : r.unsubscribedAt ? 'Unsubscribed' : r.status}</Table.Td>
                    <Table.Td>{when(r.deliveredAt)}</Table.Td>
                    <Table.Td>{when(r.openedAt)}</Table.Td>
                    <Table.Td>{when(r.clickedAt)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollArea>
        )}
        {list.hasNextPage ? (
          <Button variant="subtle" onClick={() => list.fetchNextPage()} loading={list.isFetchingNextPage}>
            Load more
          </Button>
        ) : null}
      </Stack>
    </Paper>
  );
}
