import { useEffect, useState } from 'react';
import { Anchor, Badge, Button, Group, Select, Table, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { Link } from 'react-router';
import { useTemplates } from '../api/hooks/templates';
import { useCurrentProject } from '../api/project';
import { TEMPLATE_TYPES } from '../api/templates';
import { CountAndPages, ListPage, ListTable } from '../components/ListPage';
import { momentWords } from '../api/dates';
import { useTranslation } from 'react-i18next';
const PAGE_SIZE = 20;

/** GET /templates: page-paginated on the server, searched on name, description and subject, filtered by type. */
export default function Templates() {
  const { t } = useTranslation('editor');
  const { projectId } = useCurrentProject();
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 300);
  const [type, setType] = useState<string>('all');
  const [page, setPage] = useState(1);
  useEffect(() => setPage(1), [debounced, type]);
  const list = useTemplates(projectId, { search: debounced, type, page, pageSize: PAGE_SIZE });
  return (
    <ListPage
      title={t('templates.title')}
      action={
        <Button component={Link} to={`/p/${projectId}/templates/new`}>
          {t('templates.new')}
        </Button>
      }
    >
      <Group align="flex-end">
        <TextInput
          label={t('templates.search')}
          placeholder={t('templates.searchHint')}
          type="search"
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
          w={280}
        />
        <Select
          label={t('templates.type')}
          value={type}
          onChange={(v) => setType(v ?? 'all')}
          allowDeselect={false}
          data={[{ value: 'all', label: t('templates.allTypes') }, ...TEMPLATE_TYPES.map((type) => ({ value: type, label: t(`templateTypes.${type}`) }))]}
          w={180}
        />
      </Group>
      <ListTable
        query={list}
        label={t('templates.title')}
        highlightOnHover
        miw={620}
        head={
          <>
            <Table.Th>{t('templates.name')}</Table.Th>
            <Table.Th>{t('templates.subject')}</Table.Th>
            <Table.Th>{t('templates.type')}</Table.Th>
            <Table.Th>{t('templates.updated')}</Table.Th>
          </>
        }
        row={(tpl) => (
          <Table.Tr key={tpl.id}>
            <Table.Td>
              <Anchor component={Link} to={`/p/${projectId}/templates/${tpl.id}`}>
                {tpl.name}
              </Anchor>
            </Table.Td>
            <Table.Td>
              <Text size="sm" lineClamp={1}>
                {tpl.subject}
              </Text>
            </Table.Td>
            <Table.Td>
              <Badge variant="light" color={tpl.type === 'TRANSACTIONAL' ? 'blue' : tpl.type === 'MARKETING' ? 'grape' : 'gray'}>
                {t(`templateTypes.${tpl.type}`)}
              </Badge>
            </Table.Td>
            <Table.Td>{momentWords(tpl.updatedAt)}</Table.Td>
          </Table.Tr>
        )}
        empty={debounced || type !== 'all' ? t('templates.noMatch') : t('templates.none')}
        footer={(d) => <CountAndPages count={t('templates.count', { count: d.total })} page={page} totalPages={d.totalPages} onPage={setPage} />}
      />
    </ListPage>
  );
}
