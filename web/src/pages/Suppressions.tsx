import { useState, type FormEvent } from 'react';
import { Badge, Button, Code, Divider, Group, Paper, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, fieldError, hasFieldErrors, ResponseOf, unwrap } from '../api/client';
import { useCurrentProject } from '../api/project';
import { ErrorState } from '../components/States';
import { ListPage, ListTable } from '../components/ListPage';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { manages } from '../routes';
import { SuppressionCsv } from '../components/suppressions/SuppressionCsv';
import { momentWords } from '../api/dates';
import { restoreSuppression } from '../components/suppressions/restoreSuppression';
import { notifySuccess } from '../components/notify';

type Entry = ResponseOf<'/suppressions', 'get'>['data'][number];
type Reason = Entry['reason'];
const PAGE = 50;

const REASONS: Record<Reason, { label: string; color: string }> = {
  HARD_BOUNCE: { label: 'Hard bounce', color: 'red' },
  COMPLAINT: { label: 'Spam complaint', color: 'orange' },
  MANUAL: { label: 'Added by hand', color: 'gray' },
};

/** An erased person's entry keeps suppressing under a hash (docs/api.md "Erasure"): it has no address to show or to remove by. */
const erased = (e: Entry) => e.email.startsWith('erased:');

/** Where the entry came from: the email whose bounce or complaint added it, or a person (this screen, the API). */
function Source({ entry }: { entry: Entry }) {
  if (entry.emailId)
    return (
      <Text size="sm">
        Reported for email <Code>{entry.emailId}</Code>
      </Text>
    );
  return <Text size="sm">{entry.reason === 'MANUAL' ? 'This dashboard or the API' : 'The provider'}</Text>;
}

/** "Add an address": POST /suppressions with one address (MANUAL), or every address of a CSV; one already listed is left as it is, and the screen says so. */
function AddSuppression({ projectId }: { projectId: string }) {
  const qc = useQueryClient();
  const [email, setEmail] = useState('');
  const [outcome, setOutcome] = useState<string | null>(null);
  const add = useMutation({
    mutationFn: (address: string) => unwrap(api.POST('/suppressions', { body: { emails: [address] } })),
    onSuccess: (r) => {
      setEmail('');
      setOutcome(
        r.added.length
          ? `${r.added[0]} is suppressed: no mail of this project goes to it.`
          : `${r.existing[0]} was already on the list; its entry is unchanged.`,
      );
      return qc.invalidateQueries({ queryKey: ['suppressions', projectId] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setOutcome(null);
    add.mutate(email.trim());
  };
  return (
    <Paper withBorder p="md" component="section" aria-label="Add an address">
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          <Title order={2} size="h5">
            Add an address
          </Title>
          <Group align="flex-start">
            <TextInput
              label="Email address"
              placeholder="someone@example.com"
              type="email"
              required
              value={email}
              onChange={(e) => setEmail(e.currentTarget.value)}
              error={fieldError(add.error, 'emails.0') ?? fieldError(add.error, 'emails')}
              w={320}
            />
            <Button type="submit" mt={25} loading={add.isPending}>
              Suppress address
            </Button>
          </Group>
          {add.error && !hasFieldErrors(add.error) ? <ErrorState error={add.error} title="Not added" /> : null}
          {outcome ? (
            <Text size="sm" role="status">
              {outcome}
            </Text>
          ) : null}
        </Stack>
      </form>
      <Divider my="md" label="or a whole list" labelPosition="left" />
      <SuppressionCsv projectId={projectId} />
    </Paper>
  );
}

/** Suppressions (docs/api.md "Suppressions"): the addresses no mail of the project is handed to, why each is there, and lifting one. */
export default function Suppressions() {
  const { projectId, project } = useCurrentProject();
  const may = manages(project?.role);
  const qc = useQueryClient();
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 300);
  const [reason, setReason] = useState<string>('all');
  // Cursor pagination: the stack holds the cursors of the pages before this one; another filter starts at its first page.
  const filter = `${reason}|${debounced}`;
  const [paging, setPaging] = useState<{ filter: string; cursors: (string | undefined)[] }>({ filter, cursors: [undefined] });
  const cursors = paging.filter === filter ? paging.cursors : [undefined];
  const setCursors = (next: (c: (string | undefined)[]) => (string | undefined)[]) => setPaging({ filter, cursors: next(cursors) });
  const cursor = cursors[cursors.length - 1];
  const [removing, setRemoving] = useState<Entry | null>(null);
  const list = useQuery({
    queryKey: ['suppressions', projectId, debounced, reason, cursor],
    placeholderData: keepPreviousData,
    queryFn: () =>
      unwrap(
        api.GET('/suppressions', {
          params: { query: { limit: PAGE, cursor, search: debounced || undefined, reason: reason === 'all' ? undefined : (reason as Reason) } },
        }),
      ),
  });
  const remove = useMutation({
    mutationFn: (entry: Entry) => unwrap(api.DELETE('/suppressions/{email}', { params: { path: { email: entry.email } } })),
    // The dialog shows a failure itself; a toast would repeat it.
    meta: { failure: false },
    onSuccess: async (_r, entry) => {
      setRemoving(null);
      const refresh = () => qc.invalidateQueries({ queryKey: ['suppressions', projectId] });
      notifySuccess(`${entry.email} removed from suppressions`, {
        undo: { run: () => restoreSuppression(projectId, entry).finally(refresh) },
      });
      await refresh();
    },
  });
  const filtered = !!debounced || reason !== 'all';
  return (
    <ListPage
      title="Suppressions"
      description="Addresses no mail of this project is handed to. A hard bounce or a spam complaint adds the address by itself; add one by hand when someone asks never to be mailed. Removing an address lets mail reach it again."
    >
      {/* Owners and admins change the list (docs/roles.md); a member reads it. */}
      {may ? (
        <AddSuppression projectId={projectId} />
      ) : (
        <Text size="sm" c="dimmed">
          Owners and admins add and remove suppressed addresses; your role may read the list.
        </Text>
      )}
      <Group align="flex-end">
        <TextInput label="Search" placeholder="Address contains…" type="search" value={search} onChange={(e) => setSearch(e.currentTarget.value)} w={280} />
        <Select
          label="Reason"
          value={reason}
          onChange={(v) => setReason(v ?? 'all')}
          allowDeselect={false}
          data={[{ value: 'all', label: 'All reasons' }, ...Object.entries(REASONS).map(([value, r]) => ({ value, label: r.label }))]}
          w={180}
        />
      </Group>
      <ListTable
        query={list}
        label="Suppressions"
        miw={720}
        head={
          <>
            <Table.Th>Address</Table.Th>
            <Table.Th>Reason</Table.Th>
            <Table.Th>Source</Table.Th>
            <Table.Th>Added</Table.Th>
            <Table.Th>Expires</Table.Th>
            <Table.Th />
          </>
        }
        row={(e) => {
          const expired = !!e.expiresAt && new Date(e.expiresAt) <= new Date();
          return (
            <Table.Tr key={e.email}>
              <Table.Td>{erased(e) ? <Text c="dimmed">An erased address</Text> : e.email}</Table.Td>
              <Table.Td>
                <Badge variant="light" color={REASONS[e.reason].color}>
                  {REASONS[e.reason].label}
                </Badge>
              </Table.Td>
              <Table.Td>
                <Source entry={e} />
              </Table.Td>
              <Table.Td>{momentWords(e.createdAt)}</Table.Td>
              <Table.Td>{e.expiresAt ? `${momentWords(e.expiresAt)}${expired ? ' (no longer suppresses)' : ''}` : 'Never'}</Table.Td>
              <Table.Td>
                {erased(e) || !may ? null : (
                  <Button
                    size="xs"
                    color="red"
                    variant="light"
                    aria-label={`Remove ${e.email}`}
                    onClick={() => {
                      remove.reset();
                      setRemoving(e);
                    }}
                  >
                    Remove
                  </Button>
                )}
              </Table.Td>
            </Table.Tr>
          );
        }}
        empty={
          filtered
            ? 'No suppressed address matches.'
            : 'No suppressed addresses: every contact can be mailed. Bounces and complaints will appear here by themselves; to keep mail from an address now, add it above.'
        }
        footer={(page) =>
          cursors.length > 1 || page.hasMore ? (
            <Group justify="flex-end" p="sm" gap="xs">
              <Button size="xs" variant="default" disabled={cursors.length < 2} onClick={() => setCursors((c) => c.slice(0, -1))}>
                Previous page
              </Button>
              <Button size="xs" variant="default" disabled={!page.hasMore} onClick={() => setCursors((c) => [...c, page.cursor ?? undefined])}>
                Next page
              </Button>
            </Group>
          ) : null
        }
      />
      <ConfirmDialog
        opened={removing !== null}
        title={`Remove ${removing?.email ?? ''}?`}
        message={
          removing?.reason === 'MANUAL'
            ? 'Mail of this project reaches this address again.'
            : 'Mail of this project reaches this address again, although it bounced or complained before: mailing it again can hurt your sender reputation.'
        }
        confirmLabel="Remove from suppressions"
        confirmColor="red"
        loading={remove.isPending}
        error={remove.error}
        errorTitle="Not removed"
        onConfirm={() => removing && remove.mutate(removing)}
        onCancel={() => setRemoving(null)}
      />
    </ListPage>
  );
}
