import { useState } from 'react';
import { Badge, Button, Code, Group, Select, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ResponseOf, unwrap } from '../../api/client';
import { keys } from '../../api/queryKeys';
import { useDeliveries } from '../../api/hooks/webhooks';
import { ErrorState } from '../States';
import { ListTable } from '../ListPage';
import { type Endpoint, when } from './endpoint';
import { useTranslation } from 'react-i18next';

export type Delivery = ResponseOf<'/webhook-endpoints/{id}/deliveries', 'get'>['data'][number];
export const STATUS_COLOR: Record<Delivery['status'], string> = { PENDING: 'yellow', DELIVERED: 'green', FAILED: 'red' };
const DELIVERY_STATUSES = Object.keys(STATUS_COLOR) as Delivery['status'][];

/** GET /webhook-endpoints/:id/deliveries: newest first, by cursor, filtered by status; failed ones can be retried. */
export function Deliveries({ projectId, endpoint }: { projectId: string; endpoint: Endpoint }) {
  const { t } = useTranslation('settings');
  const qc = useQueryClient();
  const [status, setStatus] = useState<string>('all');
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const page = useDeliveries(projectId, endpoint.id, { status, cursor, limit: 20 });
  const retry = useMutation({
    meta: { success: t('deliveries.retried') },
    mutationFn: (deliveryId: string) =>
      unwrap(api.POST('/webhook-endpoints/{id}/deliveries/{deliveryId}/retry', { params: { path: { id: endpoint.id, deliveryId } } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.webhooks.deliveries(projectId, endpoint.id) }),
  });
  return (
    <Stack gap="xs">
      <Group justify="space-between">
        <Title order={3} size="h5">
          {t('deliveries.heading')}
        </Title>
        <Select
          aria-label={t('deliveries.statusOf', { url: endpoint.url })}
          size="xs"
          value={status}
          onChange={(v) => {
            setStatus(v ?? 'all');
            setCursors([undefined]);
          }}
          allowDeselect={false}
          data={[{ value: 'all', label: t('deliveries.allStatuses') }, ...DELIVERY_STATUSES.map((s) => ({ value: s, label: t(`deliveries.status.${s}`) }))]}
          w={150}
        />
      </Group>
      {retry.error ? <ErrorState error={retry.error} title={t('deliveries.notRetried')} /> : null}
      <ListTable
        query={page}
        label={t('deliveries.of', { url: endpoint.url })}
        miw={640}
        fz="sm"
        head={
          <>
            <Table.Th>{t('deliveries.type')}</Table.Th>
            <Table.Th>{t('deliveries.statusColumn')}</Table.Th>
            <Table.Th>{t('deliveries.attempts')}</Table.Th>
            <Table.Th>{t('deliveries.lastAnswer')}</Table.Th>
            <Table.Th>{t('deliveries.created')}</Table.Th>
            <Table.Th />
          </>
        }
        row={(d) => (
          <Table.Tr key={d.id}>
            <Table.Td>
              <Code>{d.type}</Code>
            </Table.Td>
            <Table.Td>
              <Badge color={STATUS_COLOR[d.status]} variant="light">
                {t(`deliveries.status.${d.status}`)}
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
                  {t('deliveries.next', { when: when(d.nextAttemptAt) })}
                </Text>
              ) : null}
            </Table.Td>
            <Table.Td>{when(d.createdAt)}</Table.Td>
            <Table.Td>
              {d.status !== 'PENDING' && endpoint.enabled ? (
                <Button size="compact-xs" variant="subtle" onClick={() => retry.mutate(d.id)} loading={retry.isPending && retry.variables === d.id}>
                  {t('deliveries.retry')}
                </Button>
              ) : null}
            </Table.Td>
          </Table.Tr>
        )}
        empty={status === 'all' ? t('deliveries.empty') : t('deliveries.emptyStatus')}
        footer={(data) =>
          cursors.length > 1 || data.hasMore ? (
            <Group gap="xs" justify="flex-end" p="sm">
              <Button size="xs" variant="default" disabled={cursors.length < 2} onClick={() => setCursors((c) => c.slice(0, -1))}>
                {t('deliveries.newer')}
              </Button>
              <Button size="xs" variant="default" disabled={!data.hasMore} onClick={() => setCursors((c) => [...c, data.cursor ?? undefined])}>
                {t('deliveries.older')}
              </Button>
            </Group>
          ) : null
        }
      />
    </Stack>
  );
}
