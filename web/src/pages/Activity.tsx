import { useState } from 'react';
import { Anchor, Badge, Button, Chip, Group, Paper, ScrollArea, Stack, Table, Text, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import { keys } from '../api/queryKeys';
import { useCurrentProject } from '../api/project';
import { Empty, ErrorState, Loading } from '../components/States';
import { momentWords } from '../api/dates';
import { useTranslation } from 'react-i18next';

const TYPES = ['sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained', 'subscribed', 'unsubscribed', 'failed', 'event'] as const;
const COLORS: Record<string, string> = { bounced: 'red', complained: 'red', failed: 'red', unsubscribed: 'orange', delivered: 'green', event: 'grape' };

/** The project's newest-first feed (GET /activity), refreshed every few seconds while open. */
export default function Activity() {
  const { t } = useTranslation('data');
  const { projectId } = useCurrentProject();
  const [types, setTypes] = useState<string[]>([]);
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const feed = useQuery({
    queryKey: keys.activity(projectId, types.join(','), cursor),
    placeholderData: keepPreviousData,
    // Only the first page moves: older pages stay put.
    refetchInterval: cursor ? false : 5000,
    queryFn: () => unwrap(api.GET('/activity', { params: { query: { limit: 50, cursor, type: types.length ? types.join(',') : undefined } } })),
  });
  return (
    <Stack>
      <Title order={1} size="h2">
        {t('activity.title')}
      </Title>
      <Chip.Group
        multiple
        value={types}
        onChange={(v) => {
          setTypes(v);
          setCursors([undefined]);
        }}
      >
        <Group gap="xs" role="group" aria-label={t('activity.typesShown')}>
          {TYPES.map((type) => (
            <Chip key={type} value={type} size="xs">
              {t(`activity.types.${type}`)}
            </Chip>
          ))}
        </Group>
      </Chip.Group>
      {feed.isPending ? <Loading /> : null}
      {feed.error ? <ErrorState error={feed.error} /> : null}
      {feed.data && !feed.data.data.length ? <Empty>{t('activity.empty')}</Empty> : null}
      {feed.data?.data.length ? (
        <Paper withBorder>
          <ScrollArea>
            <Table aria-label={t('activity.table')} miw={640}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('activity.when')}</Table.Th>
                  <Table.Th>{t('activity.type')}</Table.Th>
                  <Table.Th>{t('activity.contact')}</Table.Th>
                  <Table.Th>{t('activity.what')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {feed.data.data.map((a) => (
                  <Table.Tr key={`${a.type}-${a.id}`}>
                    <Table.Td>{momentWords(a.occurredAt)}</Table.Td>
                    <Table.Td>
                      <Badge variant="light" color={COLORS[a.type] ?? 'blue'}>
                        {t(`activity.types.${a.type}`)}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      {a.contact ? (
                        <Anchor component={Link} to={`/p/${projectId}/contacts/${a.contact.id}`}>
                          {a.contact.email ?? a.contact.id}
                        </Anchor>
                      ) : (
                        '—'
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">
                        {a.email
                          ? a.email.error
                            ? t('activity.emailFailed', { subject: a.email.subject, error: a.email.error })
                            : a.email.subject
                          : a.event
                            ? a.event.name
                            : ''}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollArea>
          <Group justify="flex-end" p="sm" gap="xs">
            <Button size="xs" variant="default" disabled={cursors.length < 2} onClick={() => setCursors((c) => c.slice(0, -1))}>
              {t('activity.newer')}
            </Button>
            <Button size="xs" variant="default" disabled={!feed.data.hasMore} onClick={() => setCursors((c) => [...c, feed.data!.cursor ?? undefined])}>
              {t('activity.older')}
            </Button>
          </Group>
        </Paper>
      ) : null}
    </Stack>
  );
}
