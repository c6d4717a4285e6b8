import { useState } from 'react';
import { Alert, Anchor, Badge, Button, Checkbox, Group, Pagination, Paper, ScrollArea, Stack, Table, Text, Textarea, Title } from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, ApiError, ResponseOf, unwrap } from '../../api/client';
import { Empty, ErrorState, Loading } from '../States';
import { momentWords } from '../../api/dates';

export type Segment = ResponseOf<'/segments/{id}', 'get'>;
export const PAGE_SIZE = 20;

/** "a@x.test, b@x.test\nc@x.test" → the addresses, once each. */
export const parseAddresses = (text: string) => [
  ...new Set(
    text
      .split(/[\s,;]+/)
      .map((s) => s.trim())
      .filter(Boolean),
  ),
];

export function Members({ projectId, segment }: { projectId: string; segment: Segment }) {
  const [page, setPage] = useState(1);
  const members = useQuery({
    queryKey: ['segment-members', projectId, segment.id, page],
    placeholderData: keepPreviousData,
    queryFn: () => unwrap(api.GET('/segments/{id}/contacts', { params: { path: { id: segment.id }, query: { page, pageSize: PAGE_SIZE } } })),
  });
  const pages = members.data ? Math.max(1, Math.ceil(members.data.total / PAGE_SIZE)) : 1;
  return (
    <Paper withBorder p="md" component="section" aria-label="Members">
      <Stack gap="sm">
        <Title order={2} size="h4">
          Members
        </Title>
        {members.isPending ? <Loading /> : null}
        {members.error ? <ErrorState error={members.error} /> : null}
        {members.data && !members.data.data.length ? (
          <Empty>{segment.type === 'STATIC' ? 'No members yet: paste addresses above to add them.' : 'No contact matches this condition now.'}</Empty>
        ) : null}
        {members.data?.data.length ? (
          <ScrollArea>
            <Table aria-label="Segment members" striped miw={520}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Email</Table.Th>
                  <Table.Th>Subscribed</Table.Th>
                  <Table.Th>Created</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {members.data.data.map((c) => (
                  <Table.Tr key={c.id}>
                    <Table.Td>
                      <Anchor component={Link} to={`/p/${projectId}/contacts/${c.id}`}>
                        {c.email}
                      </Anchor>
                    </Table.Td>
                    <Table.Td>
                      <Badge variant="light" color={c.subscribed ? 'green' : 'gray'}>
                        {c.subscribed ? 'Subscribed' : 'Unsubscribed'}
                      </Badge>
                    </Table.Td>
                    <Table.Td>{momentWords(c.createdAt)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollArea>
        ) : null}
        {members.data ? (
          <Group justify="space-between">
            <Text size="sm" c="dimmed" data-testid="members-total">
              {members.data.total} member{members.data.total === 1 ? '' : 's'} now
            </Text>
            {pages > 1 ? <Pagination size="sm" total={pages} value={page} onChange={setPage} aria-label="Member pages" /> : null}
          </Group>
        ) : null}
      </Stack>
    </Paper>
  );
}

/** POST / DELETE /segments/:id/members with pasted addresses (STATIC segments). */
export function StaticMembers({ projectId, segment }: { projectId: string; segment: Segment }) {
  const qc = useQueryClient();
  const [text, setText] = useState('');
  const [createMissing, setCreateMissing] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  const emails = parseAddresses(text);
  const done = async (sentence: string, notFound: string[]) => {
    setResult(`${sentence}${notFound.length ? `; no contact for ${notFound.join(', ')}` : ''}.`);
    setText('');
    await qc.invalidateQueries({ queryKey: ['segment-members', projectId, segment.id] });
    await qc.invalidateQueries({ queryKey: ['segment', projectId, segment.id] });
    await qc.invalidateQueries({ queryKey: ['segments', projectId] });
  };
  const path = { params: { path: { id: segment.id } } };
  const add = useMutation({
    meta: { success: 'Members added' },
    mutationFn: () => unwrap(api.POST('/segments/{id}/members', { ...path, body: { emails, createMissing } })),
    onSuccess: (r) => done(`${r.added} added`, r.notFound),
  });
  const remove = useMutation({
    meta: { success: 'Members removed' },
    mutationFn: () => unwrap(api.DELETE('/segments/{id}/members', { ...path, body: { emails } })),
    onSuccess: (r) => done(`${r.removed} removed`, r.notFound),
  });
  const error = add.error ?? remove.error;
  return (
    <Paper withBorder p="md" component="section" aria-label="Add or remove members">
      <Stack gap="sm">
        <Title order={2} size="h4">
          Add or remove members
        </Title>
        <Textarea
          label="Addresses"
          description="Paste email addresses, separated by new lines, commas or spaces (up to 1,000 at a time)"
          autosize
          minRows={3}
          maxRows={10}
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          error={error instanceof ApiError ? error.message : undefined}
        />
        <Checkbox label="Create contacts for addresses that have none" checked={createMissing} onChange={(e) => setCreateMissing(e.currentTarget.checked)} />
        <Group>
          <Button
            onClick={() => {
              setResult(null);
              add.mutate();
            }}
            loading={add.isPending}
            disabled={!emails.length}
          >
            Add members
          </Button>
          <Button
            variant="default"
            onClick={() => {
              setResult(null);
              remove.mutate();
            }}
            loading={remove.isPending}
            disabled={!emails.length}
          >
            Remove members
          </Button>
          <Text size="sm" c="dimmed">
            {emails.length} address{emails.length === 1 ? '' : 'es'}
          </Text>
        </Group>
        {result ? (
          <Alert color="green" role="status" p="xs">
            {result}
          </Alert>
        ) : null}
        {error && !(error instanceof ApiError) ? <ErrorState error={error} /> : null}
      </Stack>
    </Paper>
  );
}
