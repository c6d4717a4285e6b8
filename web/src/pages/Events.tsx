import { Fragment, useState } from 'react';
import { Anchor, Badge, Button, Code, Group, Modal, Select, Stack, Table, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { useDeleteEvents, useEventNamesSince, useEvents, useEventUsage } from '../api/hooks/events';
import { useCurrentProject } from '../api/project';
import { ListTable } from '../components/ListPage';
import { ErrorState, Loading } from '../components/States';
import { momentWords, numberWords } from '../api/dates';
import { useTranslation } from 'react-i18next';

/** The newest events of one name (GET /events?name=) and what references it (GET /events/:name/usage). */
function Recent({ projectId, name }: { projectId: string; name: string }) {
  const { t } = useTranslation('data');
  const events = useEvents(projectId, name);
  const usage = useEventUsage(projectId, name);
  const used = usage.data
    ? [
        ...usage.data.segments.map((s) => t('events.bySegment', { name: s.name })),
        ...usage.data.campaigns.map((c) => t('events.byCampaign', { name: c.name })),
        ...usage.data.workflows.map((w) => t('events.byWorkflow', { name: w.name, references: w.references.join(', ') })),
      ]
    : [];
  return (
    <Stack gap="xs" py="xs">
      {usage.data ? (
        <Text size="sm" c="dimmed">
          {used.length ? t('events.usedBy', { list: used.join('; ') }) : t('events.unused')}
        </Text>
      ) : null}
      {events.isPending ? <Loading /> : null}
      {events.error ? <ErrorState error={events.error} /> : null}
      {events.data?.data.length ? (
        <Table aria-label={t('events.recent', { name })} fz="xs">
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
  const { t } = useTranslation('data');
  const { projectId } = useCurrentProject();
  const [days, setDays] = useState('30');
  const [open, setOpen] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);
  const names = useEventNamesSince(projectId, days);
  const remove = useDeleteEvents(projectId, {
    meta: { success: t('events.deletedToast') },
    onSuccess: () => {
      setDeleting(null);
      setOpen(null);
    },
  });
  return (
    <Stack>
      <Group justify="space-between" align="flex-end">
        <Title order={1} size="h2">
          {t('events.title')}
        </Title>
        <Select
          label={t('events.countedOver')}
          value={days}
          onChange={(v) => v && setDays(v)}
          allowDeselect={false}
          data={(['7', '30', '90', '365'] as const).map((value) => ({ value, label: t(`events.windows.${value}`) }))}
          w={180}
        />
      </Group>
      {/* Unstriped: a name's opened row reads as part of it. */}
      <ListTable
        query={names}
        label={t('events.table')}
        miw={560}
        striped={false}
        head={
          <>
            <Table.Th>{t('events.name')}</Table.Th>
            <Table.Th ta="right">{t('events.count')}</Table.Th>
            <Table.Th>{t('events.lastSeen')}</Table.Th>
            <Table.Th />
          </>
        }
        row={(n) => (
          <Fragment key={n.name}>
            <Table.Tr>
              <Table.Td>
                <Button variant="subtle" size="compact-sm" onClick={() => setOpen(open === n.name ? null : n.name)} aria-expanded={open === n.name}>
                  {n.name}
                </Button>{' '}
                {n.reserved ? (
                  <Badge size="xs" variant="light" color="gray">
                    {t('events.service')}
                  </Badge>
                ) : null}
              </Table.Td>
              <Table.Td ta="right">{numberWords(n.count)}</Table.Td>
              <Table.Td>{momentWords(n.lastSeen)}</Table.Td>
              <Table.Td>
                {n.reserved ? null : (
                  <Button
                    size="compact-xs"
                    variant="subtle"
                    color="red"
                    aria-label={t('events.deleteNamed', { name: n.name })}
                    onClick={() => setDeleting(n.name)}
                  >
                    {t('events.delete')}
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
        )}
        empty={t('events.empty')}
      />
      <Modal opened={deleting !== null} onClose={() => setDeleting(null)} title={t('events.deleteTitle', { name: deleting })}>
        <Stack>
          <Text>{t('events.deleteBody')}</Text>
          {remove.error ? <ErrorState error={remove.error} /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setDeleting(null)}>
              {t('events.cancel')}
            </Button>
            <Button color="red" loading={remove.isPending} onClick={() => deleting && remove.mutate(deleting)}>
              {t('events.deleteEvents')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
