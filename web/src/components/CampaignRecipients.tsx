import { useState } from 'react';
import { Button, Group, Paper, ScrollArea, SegmentedControl, Stack, Table, Text, Title } from '@mantine/core';
import { useInfiniteQuery } from '@tanstack/react-query';
import { api, ApiError, forProject, type ResponseOf, unwrap } from '../api/client';
import { keys } from '../api/queryKeys';
import { type Campaign, reportPollMs } from '../api/campaigns';
import { ErrorState, Loading } from './States';
import { momentWords } from '../api/dates';
import { i18n } from '../i18n';
import { useTranslation } from 'react-i18next';
import type { campaigns as campaignWords } from '../i18n/en/campaigns';

/** The JSON page (the same route also answers CSV, which this screen downloads separately). */
type RecipientPage = ResponseOf<'/campaigns/{id}/recipients', 'get'>;
type Status = 'delivered' | 'opened' | 'clicked' | 'bounced' | 'complained' | 'unsubscribed';
const FILTERS: (Status | 'all')[] = ['all', 'delivered', 'opened', 'clicked', 'bounced', 'complained', 'unsubscribed'];
/** An email status the catalogue has words for (campaigns:recipients.emailStatus); an unknown one shows as it is. */
type KnownStatus = keyof (typeof campaignWords)['recipients']['emailStatus'];
const knownStatus = (s: string): s is KnownStatus => i18n.exists(`campaigns:recipients.emailStatus.${s}`);

const when = (t: string | null) => (t ? momentWords(t) : '—');

/**
 * The CSV of the current filter, fetched with the dashboard's cookie and project header (a plain
 * link could not carry X-Project-Id) and handed to the browser as a download.
 */
async function downloadCsv(projectId: string, campaign: Campaign, status: Status | undefined) {
  const query = new URLSearchParams({ format: 'csv', ...(status ? { status } : {}) });
  const res = await fetch(`/campaigns/${campaign.id}/recipients?${query}`, { headers: forProject(projectId), credentials: 'same-origin' });
  const t = i18n.getFixedT(null, 'campaigns');
  if (!res.ok) throw new ApiError(res.status, t('recipients.exportFailed', { status: res.status }));
  const url = URL.createObjectURL(await res.blob());
  const a = Object.assign(document.createElement('a'), {
    href: url,
    download: `${t('recipients.file', { name: campaign.name })}${status ? `-${status}` : ''}.csv`,
  });
  a.click();
  URL.revokeObjectURL(url);
}

/** "Recipients": who got the campaign and what they did with it, filterable, paged, exportable. */
export function CampaignRecipients({ projectId, campaign }: { projectId: string; campaign: Campaign }) {
  const { t } = useTranslation('campaigns');
  const [filter, setFilter] = useState<Status | 'all'>('all');
  const [exportError, setExportError] = useState<unknown>(null);
  const [exporting, setExporting] = useState(false);
  const status = filter === 'all' ? undefined : filter;
  const list = useInfiniteQuery({
    queryKey: keys.campaigns.recipients(projectId, campaign.id, filter),
    initialPageParam: undefined as string | undefined,
    // Only the first page refreshes on its own: pages the person loaded stay as they read them.
    refetchInterval: reportPollMs(campaign),
    queryFn: async ({ pageParam }) =>
      (await unwrap(
        api.GET('/campaigns/{id}/recipients', {
          params: {
            path: { id: campaign.id },
            query: { limit: 50, format: 'json', ...(status ? { status } : {}), ...(pageParam ? { cursor: pageParam } : {}) },
          },
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
    <Paper withBorder p="md" role="region" aria-label={t('recipients.title')}>
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h4">
            {t('recipients.title')}
          </Title>
          <Button variant="default" onClick={exportCsv} loading={exporting}>
            {t('recipients.export')}
          </Button>
        </Group>
        <SegmentedControl
          aria-label={t('recipients.show')}
          value={filter}
          onChange={(v) => setFilter(v as Status | 'all')}
          data={FILTERS.map((value) => ({ value, label: t(`recipients.filter.${value}`) }))}
        />
        {exportError ? <ErrorState error={exportError} title={t('recipients.notExported')} /> : null}
        {list.isPending ? (
          <Loading label={t('recipients.loading')} />
        ) : list.error ? (
          <ErrorState error={list.error} title={t('recipients.notLoaded')} />
        ) : rows.length === 0 ? (
          <Text size="sm" c="dimmed">
            {filter === 'all' ? t('recipients.nobody') : t(`recipients.none.${filter}`)}
          </Text>
        ) : (
          <ScrollArea>
            <Table striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('recipients.email')}</Table.Th>
                  <Table.Th>{t('recipients.status')}</Table.Th>
                  <Table.Th>{t('recipients.delivered')}</Table.Th>
                  <Table.Th>{t('recipients.firstOpened')}</Table.Th>
                  <Table.Th>{t('recipients.firstClicked')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((r) => (
                  <Table.Tr key={r.emailId}>
                    <Table.Td>{r.email}</Table.Td>
                    <Table.Td>
                      {r.bouncedAt
                        ? t('recipients.filter.bounced')
                        : r.complainedAt
                          ? t('recipients.filter.complained')
                          : r.unsubscribedAt
                            ? t('recipients.filter.unsubscribed')
                            : knownStatus(r.status)
                              ? t(`recipients.emailStatus.${r.status}`)
                              : r.status}
                    </Table.Td>
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
            {t('recipients.loadMore')}
          </Button>
        ) : null}
      </Stack>
    </Paper>
  );
}
