import { useEffect, useState } from 'react';
import { Anchor, Badge, Button, Group, Pagination, Paper, ScrollArea, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, forProject, unwrap } from '../api/client';
import { useCurrentProject } from '../api/project';
import { TEMPLATE_TYPES, type TemplateType } from '../api/templates';
import { Empty, ErrorState, Loading } from '../components/States';
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
          headers: forProject(projectId),
        }),
      ),
  });
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Templates
        </Title>
        <Button component={Link} to={`/p/${projectId}/templates/new`}>
          New template
        </Button>
      </Group>
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
      {list.isPending ? <Loading /> : null}
      {list.error ? <ErrorState error={list.error} /> : null}
      {list.data ? (
        <Paper withBorder>
          {list.data.data.length ? (
            <ScrollArea>
              <Table aria-label="Templates" striped highlightOnHover miw={620}>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Name</Table.Th>
                    <Table.Th>Subject</Table.Th>
                    <Table.Th>Type</Table.Th>
                    <Table.Th>Updated</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {list.data.data.map((t) => (
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
                      <Table.Td>{new Date(t.updatedAt).toLocaleString()}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </ScrollArea>
          ) : (
            <Empty>{debounced || type !== 'all' ? 'No template matches.' : 'No templates yet: create one to reuse in sends, campaigns and workflows.'}</Empty>
          )}
          <Group justify="space-between" p="sm">
            <Text size="sm" c="dimmed">
              {list.data.total} template{list.data.total === 1 ? '' : 's'}
            </Text>
            {list.data.totalPages > 1 ? <Pagination size="sm" total={list.data.totalPages} value={page} onChange={setPage} aria-label="Pages" /> : null}
          </Group>
        </Paper>
      ) : null}
    </Stack>
  );
}
