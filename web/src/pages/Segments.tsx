import { Anchor, Badge, Button, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useSegments } from '../api/hooks/segments';
import { useCurrentProject } from '../api/project';
import { ListPage, ListTable } from '../components/ListPage';
import { momentWords, numberWords } from '../api/dates';
import { useTranslation } from 'react-i18next';

/** GET /segments: every segment with its cached member count (newest first, no pagination on the server). */
export default function Segments() {
  const { t } = useTranslation('data');
  const { projectId } = useCurrentProject();
  const list = useSegments(projectId);
  return (
    <ListPage
      title={t('segments.title')}
      action={
        <Button component={Link} to={`/p/${projectId}/segments/new`}>
          {t('segments.newSegment')}
        </Button>
      }
      description={t('segments.intro')}
    >
      <ListTable
        query={list}
        label={t('segments.title')}
        highlightOnHover
        miw={620}
        head={
          <>
            <Table.Th>{t('segments.name')}</Table.Th>
            <Table.Th>{t('segments.type')}</Table.Th>
            <Table.Th ta="right">{t('segments.members')}</Table.Th>
            <Table.Th>{t('segments.tracked')}</Table.Th>
            <Table.Th>{t('segments.updated')}</Table.Th>
          </>
        }
        row={(s) => (
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
        )}
        empty={t('segments.empty')}
        footer={(d) => (
          <Text size="sm" c="dimmed" p="sm">
            {t('segments.count', { count: d.length, n: numberWords(d.length) })}
          </Text>
        )}
      />
    </ListPage>
  );
}
