import { Fragment, useState } from 'react';
import { Anchor, Badge, Button, Code, Group, Modal, Paper, ScrollArea, Select, Stack, Table, Text, Title } from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import { useCurrentProject } from '../api/project';
import { Empty, ErrorState, Loading } from '../components/States';
import { momentWords, numberWords } from '../api/dates';

/** The newest events of one name (GET /events?name=) and what references it (GET /events/:name/usage). */
function Recent({ projectId, name }: { projectId: string; name: string }) {
  const events = useQuery({
    queryKey: ['events', projectId, name],
    queryFn: () => unwrap(api.GET('/events', { params: { query: { name, limit: 10 } } })),
  });
  const usage = useQuery({
    queryKey: ['event-usage', projectId, name],
    queryFn: () => unwrap(api.GET('/events/{eventName}/usage', { params: { path: { eventName: name } } })),
  });
  const used = usage.data ? [...usage.data.segments.map((s) => `segment ${s.name}`), ...usage.data.campaigns.map((c) => `campaign ${c.name}`), ...usage.data.workflows.map((w) => `workflow ${w.name} (${w.references.join(', ')})`)] : [];
  return (
    <Stack gap="xs" py="xs">
      {usage.data ? (
        <Text size="sm" c="dimmed">
          {used.length ? `Used by ${used.join('; ')}.` : 'Not used by any segment, campaign or workflow.'}
        </Text>
      ) : null}
      {events.isPending ? <Loading /> : null}
      {events.error ? <ErrorState error={events.error} /> : null}
      {events.data?.data.length ? (
        <Table aria-label={`Recent ${name} events`} fz="xs">
          <Table.Tbody>
            {events.data.data.map((e) => (
              <Table.Tr key={e.id}>
                <Table.Td w={180}>{momentWords(e.createdAt)}</Table.Td>
                <Table.Td>
                  {e.contactId ? (
                    <Anchor component={Link} to={`/p/${projectId}/contacts/${e.contactId}`} size="xs">
                      {e.contactEmail ?? e.contactId}
                    </Anchor>
                  ) : (
                    '—'
                  )}
                </Table.Td>
                <Table.Td>{Object.keys(e.data).length ? <Code>{JSON.stringify(e.data)}</Code> : null}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
    </Stack>
  );
}

/** GET /events/names: each name with its count over a window and when it was last seen; delete a tracked name's events. */
export default function Events() {
  const { projectId } = useCurrentProject();
  const qc = useQueryClient();
  const [days, setDays] = useState('30');
  const [open, setOpen] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);
  const names = useQuery({
    queryKey: ['event-names', projectId, days],
    placeholderData: keepPreviousData,
    queryFn: () => unwrap(api.GET('/events/names', { params: { query: { days: Number(days), limit: 500 } } })),
  });
  const remove = useMutation({
    meta: { success: 'Event deleted' },
    mutationFn: (name: string) => unwrap(api.DELETE('/events/{eventName}', { params: { path: { eventName: name } } })),
    onSuccess: () => {
      setDeleting(null);
      setOpen(null);
      return qc.invalidateQueries({ queryKey: ['event-names', projectId] });
    },
  });
  return (
    <Stack>
      <Group justify="space-between" align="flex-end">
        <Title order={1} size="h2">
          Events
        </Title>
        <Select
          label="Counted over"
          value={days}
          onChange={(v) => v && setDays(v)}
          allowDeselect={false}
          data={[
            { value: '7', label: 'the last 7 days' },
            { value: '30', label: 'the last 30 days' },
            { value: '90', label: 'the last 90 days' },
            { value: '365', label: 'the last year' },
          ]}
          w={180}
        />
      </Group>
      {names.isPending ? <Loading /> : null}
      {names.error ? <ErrorState error={names.error} /> : null}
      {names.data && !names.data.data.length ? <Empty>No events in this window: track them with POST /v1/track or /events/track.</Empty> : null}
      {names.data?.data.length ? (
        <Paper withBorder>
          <ScrollArea>
            <Table aria-label="Event names" miw={560}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th ta="right">Count</Table.Th>
                  <Table.Th>Last seen</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {names.data.data.map((n) => (
                  <Fragment key={n.name}>
                    <Table.Tr>
                      <Table.Td>
                        <Button variant="subtle" size="compact-sm" onClick={() => setOpen(open === n.name ? null : n.name)} aria-expanded={open === n.name}>
                          {n.name}
                        </Button>{' '}
                        {n.reserved ? (
                          <Badge size="xs" variant="light" color="gray">
                            service
                          </Badge>
                        ) : null}
                      </Table.Td>
                      <Table.Td ta="right">{numberWords(n.count)}</Table.Td>
                      <Table.Td>{momentWords(n.lastSeen)}</Table.Td>
                      <Table.Td>
                        {n.reserved ? null : (
                          <Button size="compact-xs" variant="subtle" color="red" aria-label={`Delete ${n.name} events`} onClick={() => setDeleting(n.name)}>
                            Delete
                          </Button>
                        )}
                      </Table.Td>
                    </Table.Tr>
                    {open === n.name ? (
                      <Table.Tr>
                        <Table.Td colSpan={4}>
                          <Recent projectId={projectId} name={n.name} />
                        </Table.Td>
                      </Table.Tr>
                    ) : null}
                  </Fragment>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollArea>
        </Paper>
      ) : null}
      <Modal opened={deleting !== null} onClose={() => setDeleting(null)} title={`Delete every ${deleting} event?`}>
        <Stack>
          <Text>All events of this name are deleted for good, for every contact; segments and workflows that read them see none.</Text>
          {remove.error ? <ErrorState error={remove.error} /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setDeleting(null)}>
              Cancel
            </Button>
            <Button color="red" loading={remove.isPending} onClick={() => deleting && remove.mutate(deleting)}>
              Delete events
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
