import { Anchor, Badge, Button, Group, Paper, ScrollArea, Stack, Table, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { useSegments } from '../api/hooks/segments';
import { useCurrentProject } from '../api/project';
import { Empty, ErrorState, Loading } from '../components/States';
import { momentWords, numberWords } from '../api/dates';
import { useTranslation } from 'react-i18next';

/** GET /segments: every segment with its cached member count (newest first, no pagination on the server). */
export default function Segments() {
  const { t } = useTranslation('data');
  const { projectId } = useCurrentProject();
  const list = useSegments(projectId);
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          {t('segments.title')}
        </Title>
        <Button component={Link} to={`/p/${projectId}/segments/new`}>
          {t('segments.newSegment')}
        </Button>
      </Group>
      <Text size="sm" c="dimmed">
        {t('segments.intro')}
      </Text>
      {list.isPending ? <Loading /> : null}
      {list.error ? <ErrorState error={list.error} /> : null}
      {list.data ? (
        <Paper withBorder>
          {list.data.length ? (
            <ScrollArea>
              <Table aria-label={t('segments.title')} striped highlightOnHover miw={620}>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t('segments.name')}</Table.Th>
                    <Table.Th>{t('segments.type')}</Table.Th>
                    <Table.Th ta="right">{t('segments.members')}</Table.Th>
                    <Table.Th>{t('segments.tracked')}</Table.Th>
                    <Table.Th>{t('segments.updated')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {list.data.map((s) => (
                    <Table.Tr key={s.id}>
                      <Table.Td>
                        <Anchor component={Link} to={`/p/${projectId}/segments/${s.id}`}>
                          {s.name}
                        </Anchor>
                        {s.description ? (
                          <Text size="xs" c="dimmed" lineClamp={1}>
                            {s.description}
                          </Text>
                        ) : null}
                      </Table.Td>
                      <Table.Td>
                        <Badge variant="light" color={s.type === 'DYNAMIC' ? 'blue' : 'gray'}>
                          {t(`segments.types.${s.type}`)}
                        </Badge>
                      </Table.Td>
                      <Table.Td ta="right" data-testid="member-count">
                        {numberWords(s.memberCount)}
                      </Table.Td>
                      <Table.Td>{s.trackMembership ? t('segments.yes') : '—'}</Table.Td>
                      <Table.Td>{momentWords(s.updatedAt)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </ScrollArea>
          ) : (
            <Empty>{t('segments.empty')}</Empty>
          )}
          <Text size="sm" c="dimmed" p="sm">
            {t('segments.count', { count: list.data.length, n: numberWords(list.data.length) })}
          </Text>
        </Paper>
      ) : null}
    </Stack>
  );
}
