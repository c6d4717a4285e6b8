import { Anchor, Badge, Button, Group, Paper, ScrollArea, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import { useCurrentProject } from '../api/project';
import { Empty, ErrorState, Loading } from '../components/States';
import { momentWords, numberWords } from '../api/dates';

/** GET /segments: every segment with its cached member count (newest first, no pagination on the server). */
export default function Segments() {
  const { projectId } = useCurrentProject();
  const list = useQuery({ queryKey: ['segments', projectId], queryFn: () => unwrap(api.GET('/segments')) });
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Segments
        </Title>
        <Button component={Link} to={`/p/${projectId}/segments/new`}>
          New segment
        </Button>
      </Group>
      <Text size="sm" c="dimmed">
        Dynamic segments are the contacts a filter matches; static ones are lists you manage. Campaigns send to them; tracked ones fire segment.&lt;slug&gt;.entry and .exit events.
      </Text>
      {list.isPending ? <Loading /> : null}
      {list.error ? <ErrorState error={list.error} /> : null}
      {list.data ? (
        <Paper withBorder>
          {list.data.length ? (
            <ScrollArea>
              <Table aria-label="Segments" striped highlightOnHover miw={620}>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Name</Table.Th>
                    <Table.Th>Type</Table.Th>
                    <Table.Th ta="right">Members</Table.Th>
                    <Table.Th>Tracked</Table.Th>
                    <Table.Th>Updated</Table.Th>
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
                          {s.type}
                        </Badge>
                      </Table.Td>
                      <Table.Td ta="right" data-testid="member-count">
                        {numberWords(s.memberCount)}
                      </Table.Td>
                      <Table.Td>{s.trackMembership ? 'yes' : '—'}</Table.Td>
                      <Table.Td>{momentWords(s.updatedAt)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </ScrollArea>
          ) : (
            <Empty>No segments yet: create one from a filter, or a static list of addresses.</Empty>
          )}
          <Text size="sm" c="dimmed" p="sm">
            {list.data.length} segment{list.data.length === 1 ? '' : 's'}; counts are cached (Refresh recounts one)
          </Text>
        </Paper>
      ) : null}
    </Stack>
  );
}
