import { useState } from 'react';
import { Button, Group, Paper, SegmentedControl, Stack, Table, Title } from '@mantine/core';
import { ApiError, forProject } from '../api/client';
import type { Campaign } from '../api/campaigns';
import { type RecipientStatus, useCampaignRecipients } from '../api/hooks/campaigns';
import { ErrorState } from './States';
import { ListTable } from './ListPage';
import { momentWords } from '../api/dates';
import { i18n } from '../i18n';
import { useTranslation } from 'react-i18next';
import type { campaigns as campaignWords } from '../i18n/en/campaigns';

const FILTERS: (RecipientStatus | 'all')[] = ['all', 'delivered', 'opened', 'clicked', 'bounced', 'complained', 'unsubscribed'];
/** An email status the catalogue has words for (campaigns:recipients.emailStatus); an unknown one shows as it is. */
type KnownStatus = keyof (typeof campaignWords)['recipients']['emailStatus'];
const knownStatus = (s: string): s is KnownStatus => i18n.exists(`campaigns:recipients.emailStatus.${s}`);

const when = (t: string | null) => (t ? momentWords(t) : '—');

/**
 * The CSV of the current filter, fetched with the dashboard's cookie and project header (a plain
 * link could not carry X-Project-Id) and handed to the browser as a download.
 */
async function downloadCsv(projectId: string, campaign: Campaign, status: RecipientStatus | undefined) {
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
  const [filter, setFilter] = useState<RecipientStatus | 'all'>('all');
  const [exportError, setExportError] = useState<unknown>(null);
  const [exporting, setExporting] = useState(false);
  const status = filter === 'all' ? undefined : filter;
  const list = useCampaignRecipients(projectId, campaign, filter);
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
          onChange={(v) => setFilter(v as RecipientStatus | 'all')}
          data={FILTERS.map((value) => ({ value, label: t(`recipients.filter.${value}`) }))}
        />
        {exportError ? <ErrorState error={exportError} title={t('recipients.notExported')} /> : null}
        <ListTable
          query={list}
          items={(data) => data.pages.flatMap((p) => p.data)}
          label={t('recipients.title')}
          loadingLabel={t('recipients.loading')}
          errorTitle={t('recipients.notLoaded')}
          framed={false}
          head={
            <>
              <Table.Th>{t('recipients.email')}</Table.Th>
              <Table.Th>{t('recipients.status')}</Table.Th>
              <Table.Th>{t('recipients.delivered')}</Table.Th>
              <Table.Th>{t('recipients.firstOpened')}</Table.Th>
              <Table.Th>{t('recipients.firstClicked')}</Table.Th>
            </>
          }
          row={(r) => (
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
          )}
          empty={filter === 'all' ? t('recipients.nobody') : t(`recipients.none.${filter}`)}
        />
        {list.hasNextPage ? (
          <Button variant="subtle" onClick={() => list.fetchNextPage()} loading={list.isFetchingNextPage}>
            {t('recipients.loadMore')}
          </Button>
        ) : null}
      </Stack>
    </Paper>
  );
}
