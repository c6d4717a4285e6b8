import { useEffect, useState } from 'react';
import { Anchor, Badge, Button, Group, Select, Table, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import { useCurrentProject } from '../api/project';
import { TEMPLATE_TYPES, type TemplateType } from '../api/templates';
import { CountAndPages, ListPage, ListTable } from '../components/ListPage';
import { momentWords } from '../api/dates';
const PAGE_SIZE = 20;

/** GET /templates: page-paginated on the server, searched on name, description and subject, filtered by type. */
export default function Templates() {
  const { projectId } = useCurrentProject();
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 300);
  const [type, setType] = useState<string>('all');
  const [page, setPage] = useState(1);
  useEffect(() => setPage(1), [debounced, type]);
  const list = useQuery({
    queryKey: ['templates', projectId, debounced, type, page],
    placeholderData: keepPreviousData,
    queryFn: () =>
      unwrap(
        api.GET('/templates', {
          params: { query: { page, pageSize: PAGE_SIZE, search: debounced || undefined, type: type === 'all' ? undefined : (type as TemplateType), sort: 'updatedAt', dir: 'desc' } },
        }),
      ),
  });
  return (
    <ListPage
      title="Templates"
      action={
        <Button component={Link} to={`/p/${projectId}/templates/new`}>
          New template
        </Button>
      }
    >
      <Group align="flex-end">
        <TextInput label="Search" placeholder="Name, description or subject" type="search" value={search} onChange={(e) => setSearch(e.currentTarget.value)} w={280} />
        <Select
          label="Type"
          value={type}
          onChange={(v) => setType(v ?? 'all')}
          allowDeselect={false}
          data={[{ value: 'all', label: 'All types' }, ...TEMPLATE_TYPES.map((t) => ({ value: t, label: t.charAt(0) + t.slice(1).toLowerCase() }))]}
          w={180}
        />
      </Group>
      <ListTable
        query={list}
        label="Templates"
        highlightOnHover
        miw={620}
        head={
          <>
            <Table.Th>Name</Table.Th>
            <Table.Th>Subject</Table.Th>
            <Table.Th>Type</Table.Th>
            <Table.Th>Updated</Table.Th>
          </>
        }
        row={(t) => (
          <Table.Tr key={t.id}>
            <Table.Td>
              <Anchor component={Link} to={`/p/${projectId}/templates/${t.id}`}>
                {t.name}
              </Anchor>
            </Table.Td>
            <Table.Td>
              <Text size="sm" lineClamp={1}>
                {t.subject}
              </Text>
            </Table.Td>
            <Table.Td>
              <Badge variant="light" color={t.type === 'TRANSACTIONAL' ? 'blue' : t.type === 'MARKETING' ? 'grape' : 'gray'}>
                {t.type}
              </Badge>
            </Table.Td>
            <Table.Td>{momentWords(t.updatedAt)}</Table.Td>
          </Table.Tr>
        )}
        empty={debounced || type !== 'all' ? 'No template matches.' : 'No templates yet: create one to reuse in sends, campaigns and workflows.'}
        footer={(d) => (
          <CountAndPages
            count={
              <>
                {d.total} template{d.total === 1 ? '' : 's'}
              </>
            }
            page={page}
            totalPages={d.totalPages}
            onPage={setPage}
          />
        )}
      />
    </ListPage>
  );
}
