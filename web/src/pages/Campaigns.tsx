import { useEffect, useState } from 'react';
import { Anchor, Badge, Button, Group, Progress, Table, Tabs, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { Link } from 'react-router';
import { useCampaigns } from '../api/hooks/campaigns';
import { useCurrentProject } from '../api/project';
import { CAMPAIGN_STATUSES, isOne, STATUS_COLOR, type CampaignStatus } from '../api/campaigns';
import { CountAndPages, ListPage, ListTable } from '../components/ListPage';
import { scheduleText, type RssSchedule } from '../api/rssCampaigns';
import { momentWords, numberWords } from '../api/dates';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';

const PAGE_SIZE = 20;

/** GET /campaigns: page-paginated, one tab per status (PAUSED included), searched on name, subject and sender. */
export default function Campaigns() {
  const { t } = useTranslation('campaigns');
  const { projectId } = useCurrentProject();
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 300);
  const [status, setStatus] = useState<string>('all');
  const [page, setPage] = useState(1);
  useEffect(() => setPage(1), [debounced, status]);
  const list = useCampaigns(projectId, { search: debounced, status, page, pageSize: PAGE_SIZE });
  const filtered = !!debounced || status !== 'all';
  return (
    <ListPage
      title={t('list.title')}
      action={
        <Group gap="xs">
          <Button component={Link} to={`/p/${projectId}/campaigns/new?kind=rss`} variant="default">
            {t('list.newRss')}
          </Button>
          <Button component={Link} to={`/p/${projectId}/campaigns/new`}>
            {t('list.new')}
          </Button>
        </Group>
      }
    >
      <Tabs value={status} onChange={(v) => setStatus(v ?? 'all')} aria-label={t('list.statusTabs')}>
        <Tabs.List>
          <Tabs.Tab value="all">{t('list.all')}</Tabs.Tab>
          {CAMPAIGN_STATUSES.map((s) => (
            <Tabs.Tab key={s} value={s}>
              {t(`status.${s}`)}
            </Tabs.Tab>
          ))}
        </Tabs.List>
      </Tabs>
      <TextInput
        label={t('list.search')}
        placeholder={t('list.searchPlaceholder')}
        type="search"
        value={search}
        onChange={(e) => setSearch(e.currentTarget.value)}
        w={300}
      />
      <ListTable
        query={list}
        label={t('list.title')}
        highlightOnHover
        miw={760}
        head={
          <>
            <Table.Th>{t('list.name')}</Table.Th>
            <Table.Th>{t('list.statusColumn')}</Table.Th>
            <Table.Th>{t('list.progress')}</Table.Th>
            <Table.Th ta="right">{t('list.opened')}</Table.Th>
            <Table.Th ta="right">{t('list.clicked')}</Table.Th>
            <Table.Th>{t('list.when')}</Table.Th>
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
                {t(`status.${c.status}`)}
              </Badge>
              {c.kind === 'RSS' ? (
                <Badge variant="outline" color="gray" ml={4}>
                  {t('rssBadge')}
                </Badge>
              ) : null}
            </Table.Td>
            <Table.Td miw={150}>
              {c.totalRecipients ? (
                <>
                  <Progress value={(100 * c.sentCount) / c.totalRecipients} size="sm" aria-label={t('list.sentBar', { name: c.name })} />
                  <Text size="xs" c="dimmed">
                    {t('list.sentOf', { sent: numberWords(c.sentCount), total: numberWords(c.totalRecipients) })}
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
              <Text size="sm">{whenOf(c, t)}</Text>
            </Table.Td>
          </Table.Tr>
        )}
        empty={filtered ? t('list.noMatch') : t('list.empty')}
        footer={(d) => (
          <CountAndPages
            count={t(isOne(d.total) ? 'count.campaignOne' : 'count.campaignOther', { n: numberWords(d.total) })}
            page={page}
            totalPages={d.totalPages}
            onPage={setPage}
          />
        )}
      />
    </ListPage>
  );
}

function whenOf(
  c: { status: CampaignStatus; scheduledFor: string | null; sentAt: string | null; createdAt: string; schedule?: RssSchedule },
  t: TFunction<'campaigns'>,
) {
  if (c.schedule) return scheduleText(c.schedule);
  if (c.status === 'SCHEDULED' && c.scheduledFor) return t('list.scheduledFor', { when: momentWords(c.scheduledFor) });
  if (c.sentAt) return t('list.sentAt', { when: momentWords(c.sentAt) });
  return t('list.createdAt', { when: momentWords(c.createdAt) });
}
