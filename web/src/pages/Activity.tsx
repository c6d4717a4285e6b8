import { useState } from 'react';
import { Anchor, Badge, Button, Chip, Group, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useActivityFeed } from '../api/hooks/activity';
import { useCurrentProject } from '../api/project';
import { ListPage, ListTable } from '../components/ListPage';
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
  const feed = useActivityFeed(projectId, types, cursor);
  return (
    <ListPage title={t('activity.title')}>
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
      <ListTable
        query={feed}
        label={t('activity.table')}
        miw={640}
        head={
          <>
            <Table.Th>{t('activity.when')}</Table.Th>
            <Table.Th>{t('activity.type')}</Table.Th>
            <Table.Th>{t('activity.contact')}</Table.Th>
            <Table.Th>{t('activity.what')}</Table.Th>
          </>
        }
        row={(a) => (
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
        )}
        empty={t('activity.empty')}
        footer={(d) =>
          d.data.length ? (
            <Group justify="flex-end" p="sm" gap="xs">
              <Button size="xs" variant="default" disabled={cursors.length < 2} onClick={() => setCursors((c) => c.slice(0, -1))}>
                {t('activity.newer')}
              </Button>
              <Button size="xs" variant="default" disabled={!d.hasMore} onClick={() => setCursors((c) => [...c, d.cursor ?? undefined])}>
                {t('activity.older')}
              </Button>
            </Group>
          ) : null
        }
      />
    </ListPage>
  );
}
