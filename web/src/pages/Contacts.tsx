import { useEffect, useState } from 'react';
import { Anchor, Badge, Button, Checkbox, Group, Modal, Paper, Progress, ScrollArea, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, forProject, ResponseOf, unwrap } from '../api/client';
import { useCurrentProject } from '../api/project';
import { Empty, ErrorState, Loading } from '../components/States';
import { AddContact } from '../components/AddContact';
import { ImportCsv } from '../components/contacts/ImportCsv';
import { usePageTitle } from '../components/usePageTitle';
import { restoreContacts, snapshotContacts } from '../components/contacts/restoreContacts';
import { notifySuccess } from '../components/notify';

type Job = ResponseOf<'/contacts/bulk/{jobId}', 'get'>;
const PAGE = 25;

type BulkAction = 'subscribe' | 'unsubscribe' | 'delete';
const BULK_PATHS = { subscribe: '/contacts/bulk-subscribe', unsubscribe: '/contacts/bulk-unsubscribe', delete: '/contacts/bulk-delete' } as const;
const BULK_LABELS: Record<BulkAction, string> = { subscribe: 'Subscribe', unsubscribe: 'Unsubscribe', delete: 'Delete' };
const done = (job: Job | undefined) => !!job && ['COMPLETED', 'FAILED'].includes(job.status);

/**
 * Bulk subscribe, unsubscribe or delete of the selected contacts (POST /contacts/bulk-*, a queued job of
 * up to 1,000), then its progress from GET /contacts/bulk/:jobId until it is done. Delete asks first.
 */
function BulkActions({ projectId, selected, onDone }: { projectId: string; selected: string[]; onDone: () => void }) {
  const [asking, setAsking] = useState(false);
  const [running, setRunning] = useState<{ action: BulkAction; jobId: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const job = useQuery({
    queryKey: ['bulk', projectId, running?.jobId],
    enabled: !!running,
    queryFn: () => unwrap(api.GET('/contacts/bulk/{jobId}', { params: { path: { jobId: running!.jobId } }, headers: forProject(projectId) })),
    refetchInterval: (q) => (done(q.state.data as Job | undefined) ? false : 500),
  });
  const finished = done(job.data);
  // The deleted contacts as they were, for the toast's "Undo" (components/contacts/restoreContacts.ts).
  const [deleted, setDeleted] = useState<Awaited<ReturnType<typeof snapshotContacts>>>(null);
  useEffect(() => {
    if (!finished) return;
    onDone();
    if (running?.action === 'delete' && job.data) {
      const gone = job.data.succeeded;
      const undo = deleted && gone === deleted.length ? { run: () => restoreContacts(projectId, deleted).finally(onDone) } : undefined;
      notifySuccess(`${gone} contact${gone === 1 ? '' : 's'} deleted`, { undo });
    }
  }, [finished]); // eslint-disable-line react-hooks/exhaustive-deps

  async function start(action: BulkAction) {
    setError(null);
    setAsking(false);
    try {
      setDeleted(action === 'delete' ? await snapshotContacts(projectId, selected) : null);
      const res = await unwrap(api.POST(BULK_PATHS[action], { body: { contactIds: selected }, headers: forProject(projectId) }));
      setRunning({ action, jobId: res.jobId });
    } catch (err) {
      setError(err);
    }
  }
  const busy = !!running && !finished;
  // Shown while contacts are selected, and after a job until another starts (its outcome stays readable).
  if (!selected.length && !running && !error) return null;
  const percent = job.data?.total ? (100 * job.data.processed) / job.data.total : finished ? 100 : 0;
  return (
    <Paper withBorder p="sm" aria-label="Bulk actions" component="section">
      <Group justify="space-between">
        <Text size="sm">
          {selected.length} selected{selected.length > 1000 ? ' (at most 1,000 at a time)' : ''}
        </Text>
        <Group gap="xs">
          <Button size="xs" variant="light" disabled={busy || !selected.length} onClick={() => start('subscribe')}>
            Subscribe selected
          </Button>
          <Button size="xs" variant="light" disabled={busy || !selected.length} onClick={() => start('unsubscribe')}>
            Unsubscribe selected
          </Button>
          <Button size="xs" color="red" variant="light" disabled={busy || !selected.length} onClick={() => setAsking(true)}>
            Delete selected
          </Button>
        </Group>
      </Group>
      {error ? <ErrorState error={error} title="Not started" /> : null}
      {running ? (
        <Stack gap={4} mt="xs">
          <Progress value={percent} aria-label="Bulk progress" animated={!finished} />
          <Text size="sm" role="status">
            {BULK_LABELS[running.action]}:{' '}
            {job.data
              ? finished
                ? `${job.data.status.toLowerCase()}: ${job.data.succeeded} done, ${job.data.failed} failed`
                : `${job.data.status.toLowerCase()}: ${job.data.processed} of ${job.data.total}`
              : 'queued…'}
          </Text>
          {job.data?.errors.length ? (
            <Text size="xs" c="red">
              {job.data.errors
                .slice(0, 5)
                .map((e) => `${e.contactId ?? ''} ${e.message}`)
                .join('; ')}
            </Text>
          ) : null}
          {job.error ? <ErrorState error={job.error} /> : null}
        </Stack>
      ) : null}
      <Modal opened={asking} onClose={() => setAsking(false)} title={`Delete ${selected.length} contact${selected.length === 1 ? '' : 's'}?`}>
        <Stack>
          <Text>The selected contacts and all of their events are deleted for good.</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setAsking(false)}>
              Cancel
            </Button>
            <Button color="red" onClick={() => start('delete')}>
              Delete contacts
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Paper>
  );
}

export default function Contacts() {
  const { projectId } = useCurrentProject();
  usePageTitle('Contacts');
  const qc = useQueryClient();
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 300);
  const [subscribed, setSubscribed] = useState<string>('all');
  const [sort, setSort] = useState<'createdAt' | 'email'>('createdAt');
  // The server paginates by cursor: the stack holds the cursors of the pages before this one.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  // Selected contact ids, across pages of the same listing; a new filter starts afresh.
  const [selected, setSelected] = useState<string[]>([]);
  useEffect(() => {
    setCursors([undefined]);
    setSelected([]);
  }, [debounced, subscribed, sort]);
  const cursor = cursors[cursors.length - 1];
  const page = useQuery({
    queryKey: ['contacts', projectId, debounced, subscribed, sort, cursor],
    placeholderData: keepPreviousData,
    queryFn: () =>
      unwrap(
        api.GET('/contacts', {
          params: {
            query: {
              limit: PAGE,
              cursor,
              search: debounced || undefined,
              subscribed: subscribed === 'all' ? undefined : (subscribed as 'true' | 'false'),
              sort,
              dir: sort === 'email' ? 'asc' : 'desc',
            },
          },
          headers: forProject(projectId),
        }),
      ),
  });
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Contacts
        </Title>
        <Group gap="xs">
          <ImportCsv projectId={projectId} onDone={() => qc.invalidateQueries({ queryKey: ['contacts', projectId] })} />
          <AddContact projectId={projectId} />
        </Group>
      </Group>
      <Group align="flex-end">
        <TextInput label="Search" placeholder="Email contains…" type="search" value={search} onChange={(e) => setSearch(e.currentTarget.value)} w={280} />
        <Select
          label="Subscribed"
          value={subscribed}
          onChange={(v) => setSubscribed(v ?? 'all')}
          allowDeselect={false}
          data={[
            { value: 'all', label: 'All' },
            { value: 'true', label: 'Subscribed' },
            { value: 'false', label: 'Unsubscribed' },
          ]}
          w={160}
        />
        <Select
          label="Sort by"
          value={sort}
          onChange={(v) => setSort((v as 'createdAt' | 'email') ?? 'createdAt')}
          allowDeselect={false}
          data={[
            { value: 'createdAt', label: 'Newest first' },
            { value: 'email', label: 'Email A–Z' },
          ]}
          w={160}
        />
      </Group>
      <BulkActions
        projectId={projectId}
        selected={selected}
        onDone={() => {
          setSelected([]);
          return qc.invalidateQueries({ queryKey: ['contacts', projectId] });
        }}
      />
      {page.isPending ? <Loading /> : null}
      {page.error ? <ErrorState error={page.error} /> : null}
      {page.data ? (
        <Paper withBorder>
          {page.data.data.length ? (
            <ScrollArea>
              <Table aria-label="Contacts" striped highlightOnHover miw={560}>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th w={40}>
                      <Checkbox
                        aria-label="Select all on this page"
                        checked={page.data.data.every((c) => selected.includes(c.id))}
                        indeterminate={page.data.data.some((c) => selected.includes(c.id)) && !page.data.data.every((c) => selected.includes(c.id))}
                        onChange={(e) => {
                          const ids = page.data!.data.map((c) => c.id);
                          const on = e.currentTarget.checked;
                          setSelected((s) => (on ? [...new Set([...s, ...ids])] : s.filter((id) => !ids.includes(id))));
                        }}
                      />
                    </Table.Th>
                    <Table.Th>Email</Table.Th>
                    <Table.Th>Subscribed</Table.Th>
                    <Table.Th>Created</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {page.data.data.map((c) => (
                    <Table.Tr key={c.id} bg={selected.includes(c.id) ? 'var(--mantine-color-indigo-light)' : undefined}>
                      <Table.Td>
                        <Checkbox
                          aria-label={`Select ${c.email}`}
                          checked={selected.includes(c.id)}
                          onChange={(e) => {
                            const on = e.currentTarget.checked;
                            setSelected((s) => (on ? [...s, c.id] : s.filter((id) => id !== c.id)));
                          }}
                        />
                      </Table.Td>
                      <Table.Td>
                        <Anchor component={Link} to={`/p/${projectId}/contacts/${c.id}`}>
                          {c.email}
                        </Anchor>
                      </Table.Td>
                      <Table.Td>
                        <Badge color={c.subscribed ? 'green' : 'gray'} variant="light">
                          {c.subscribed ? 'Subscribed' : 'Unsubscribed'}
                        </Badge>
                      </Table.Td>
                      <Table.Td>{new Date(c.createdAt).toLocaleString()}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </ScrollArea>
          ) : (
            <Empty>
              {debounced || subscribed !== 'all'
                ? 'No contact matches.'
                : 'No contacts yet: "Add contact" adds one, "Import CSV" many; the API (POST /contacts) adds them from your app.'}
            </Empty>
          )}
          <Group justify="space-between" p="sm">
            <Text size="sm" c="dimmed">
              {page.data.total} contact{page.data.total === 1 ? '' : 's'}
            </Text>
            <Group gap="xs">
              <Button size="xs" variant="default" disabled={cursors.length < 2} onClick={() => setCursors((c) => c.slice(0, -1))}>
                Previous page
              </Button>
              <Button size="xs" variant="default" disabled={!page.data.hasMore} onClick={() => setCursors((c) => [...c, page.data!.cursor ?? undefined])}>
                Next page
              </Button>
            </Group>
          </Group>
        </Paper>
      ) : null}
    </Stack>
  );
}
