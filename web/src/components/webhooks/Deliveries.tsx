import { useState } from 'react';
import { Badge, Button, Code, Group, ScrollArea, Select, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ResponseOf, unwrap } from '../../api/client';
import { Empty, ErrorState, Loading } from '../States';
import { type Endpoint, when } from './endpoint';

export type Delivery = ResponseOf<'/webhook-endpoints/{id}/deliveries', 'get'>['data'][number];
export const STATUS_COLOR: Record<Delivery['status'], string> = { PENDING: 'yellow', DELIVERED: 'green', FAILED: 'red' };

/** GET /webhook-endpoints/:id/deliveries: newest first, by cursor, filtered by status; failed ones can be retried. */
export function Deliveries({ projectId, endpoint }: { projectId: string; endpoint: Endpoint }) {
  const qc = useQueryClient();
  const [status, setStatus] = useState<string>('all');
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const page = useQuery({
    queryKey: ['webhook-deliveries', projectId, endpoint.id, status, cursor],
    queryFn: () =>
      unwrap(
        api.GET('/webhook-endpoints/{id}/deliveries', {
          params: { path: { id: endpoint.id }, query: { limit: 20, cursor, status: status === 'all' ? undefined : (status as Delivery['status']) } },
        }),
      ),
    // Pending messages change on their own: refresh while the first page is open.
    refetchInterval: cursor ? false : 5_000,
  });
  const retry = useMutation({
    meta: { success: 'Delivery sent again' },
    mutationFn: (deliveryId: string) =>
      unwrap(api.POST('/webhook-endpoints/{id}/deliveries/{deliveryId}/retry', { params: { path: { id: endpoint.id, deliveryId } } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['webhook-deliveries', projectId, endpoint.id] }),
  });
  return (
    <Stack gap="xs">
      <Group justify="space-between">
        <Title order={3} size="h5">
          Deliveries
        </Title>
        <Select
          aria-label={`Delivery status of ${endpoint.url}`}
          size="xs"
          value={status}
          onChange={(v) => {
            setStatus(v ?? 'all');
            setCursors([undefined]);
          }}
          allowDeselect={false}
          data={[
            { value: 'all', label: 'All statuses' },
            { value: 'PENDING', label: 'Pending' },
            { value: 'DELIVERED', label: 'Delivered' },
            { value: 'FAILED', label: 'Failed' },
          ]}
          w={150}
        />
      </Group>
      {page.isPending ? <Loading /> : null}
      {page.error ? <ErrorState error={page.error} /> : null}
      {retry.error ? <ErrorState error={retry.error} title="Not retried" /> : null}
      {page.data && !page.data.data.length ? <Empty>No messages yet{status === 'all' ? '' : ' with this status'}.</Empty> : null}
      {page.data?.data.length ? (
        <ScrollArea>
          <Table aria-label={`Deliveries of ${endpoint.url}`} miw={640} fz="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Type</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Attempts</Table.Th>
                <Table.Th>Last answer</Table.Th>
                <Table.Th>Created</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {page.data.data.map((d) => (
                <Table.Tr key={d.id}>
                  <Table.Td>
                    <Code>{d.type}</Code>
                  </Table.Td>
                  <Table.Td>
                    <Badge color={STATUS_COLOR[d.status]} variant="light">
                      {d.status}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{d.attempts}</Table.Td>
                  <Table.Td>
                    {d.lastStatusCode ?? ''}{' '}
                    {d.lastError ? (
                      <Text span size="xs" c="dimmed">
                        {d.lastError}
                      </Text>
                    ) : null}
                    {d.status === 'PENDING' && d.nextAttemptAt ? (
                      <Text size="xs" c="dimmed">
                        next: {when(d.nextAttemptAt)}
                      </Text>
                    ) : null}
                  </Table.Td>
                  <Table.Td>{when(d.createdAt)}</Table.Td>
                  <Table.Td>
                    {d.status !== 'PENDING' && endpoint.enabled ? (
                      <Button size="compact-xs" variant="subtle" onClick={() => retry.mutate(d.id)} loading={retry.isPending && retry.variables === d.id}>
                        Retry
                      </Button>
                    ) : null}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea>
      ) : null}
      {page.data && (cursors.length > 1 || page.data.hasMore) ? (
        <Group gap="xs" justify="flex-end">
          <Button size="xs" variant="default" disabled={cursors.length < 2} onClick={() => setCursors((c) => c.slice(0, -1))}>
            Newer
          </Button>
          <Button size="xs" variant="default" disabled={!page.data.hasMore} onClick={() => setCursors((c) => [...c, page.data!.cursor ?? undefined])}>
            Older
          </Button>
        </Group>
      ) : null}
    </Stack>
  );
}
