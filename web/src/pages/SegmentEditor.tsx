import { useEffect, useState } from 'react';
import { Alert, Anchor, Badge, Button, Checkbox, Code, Group, Modal, Pagination, Paper, ScrollArea, SegmentedControl, Stack, Switch, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { api, ApiError, ResponseOf, unwrap } from '../api/client';
import { useCurrentProject } from '../api/project';
import { conditionErrors, FilterBuilder, newTree, type FilterTree } from '../components/FilterBuilder';
import { Empty, ErrorState, Loading } from '../components/States';
import { momentWords } from '../api/dates';

type Segment = ResponseOf<'/segments/{id}', 'get'>;
const PAGE_SIZE = 20;

/**
 * The segment routes answer validation failures with a flat `{ error }` sentence naming its field
 * ("Name is required", "condition.groups.0.filters.1.value: …"): matched to the input it names.
 */
function formErrors(error: unknown) {
  const message = error instanceof ApiError ? error.message : '';
  const name = /^Name\b/.test(message) ? message : undefined;
  const description = /^Description\b/.test(message) ? message : undefined;
  const condition = conditionErrors(error);
  const other = error && !name && !description && !Object.keys(condition).length ? error : null;
  return { name, description, condition, other };
}

/** "a@x.test, b@x.test\nc@x.test" → the addresses, once each. */
const parseAddresses = (text: string) => [...new Set(text.split(/[\s,;]+/).map((s) => s.trim()).filter(Boolean))];

function Members({ projectId, segment }: { projectId: string; segment: Segment }) {
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
        {members.data && !members.data.data.length ? <Empty>{segment.type === 'STATIC' ? 'No members yet: paste addresses above to add them.' : 'No contact matches this condition now.'}</Empty> : null}
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
function StaticMembers({ projectId, segment }: { projectId: string; segment: Segment }) {
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

/** Compute (tracked segments: entry/exit events) and Refresh (recount only), each with what it answered. */
function Recount({ projectId, segment }: { projectId: string; segment: Segment }) {
  const qc = useQueryClient();
  const [result, setResult] = useState<string | null>(null);
  const path = { params: { path: { id: segment.id } } };
  // Not awaited: the button is done when the answer is shown; the count and members follow.
  const after = (sentence: string) => {
    setResult(sentence);
    void qc.invalidateQueries({ queryKey: ['segment', projectId, segment.id] });
    void qc.invalidateQueries({ queryKey: ['segments', projectId] });
    void qc.invalidateQueries({ queryKey: ['segment-members', projectId, segment.id] });
  };
  const compute = useMutation({
    // 200 with the counts, or 202 while it still runs: both are in the route's responses.
    mutationFn: () => unwrap(api.POST('/segments/{id}/compute', path)),
    onSuccess: (r) =>
      after(
        'running' in r
          ? `Still computing (workflow ${r.workflowId}); the count updates when it ends.`
          : `Computed: ${r.memberCount} member${r.memberCount === 1 ? '' : 's'}, ${r.entered} entered, ${r.exited} exited.`,
      ),
  });
  const refresh = useMutation({
    meta: { success: 'Segment refreshed' },
    mutationFn: () => unwrap(api.POST('/segments/{id}/refresh', path)),
    onSuccess: (r) => after(`Refreshed: ${r.memberCount} member${r.memberCount === 1 ? '' : 's'}.`),
  });
  const error = compute.error ?? refresh.error;
  return (
    <Stack gap="xs">
      <Group>
        <Button
          variant="default"
          onClick={() => {
            setResult(null);
            compute.mutate();
          }}
          loading={compute.isPending}
          title={segment.trackMembership ? 'Diff the stored membership with the live match and fire entry/exit events' : 'Not tracked: recounts only'}
        >
          Compute
        </Button>
        <Button
          variant="default"
          onClick={() => {
            setResult(null);
            refresh.mutate();
          }}
          loading={refresh.isPending}
        >
          Refresh
        </Button>
        <Text size="sm" c="dimmed">
          Cached count: <b data-testid="cached-count">{segment.memberCount}</b>
        </Text>
      </Group>
      {result ? (
        <Alert color="blue" role="status" p="xs" data-testid="recount-result">
          {result}
        </Alert>
      ) : null}
      {error ? <ErrorState error={error} /> : null}
    </Stack>
  );
}

function DeleteSegment({ projectId, segment }: { projectId: string; segment: Segment }) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [asking, setAsking] = useState(false);
  const remove = useMutation({
    meta: { success: 'Segment deleted' },
    mutationFn: () => unwrap(api.DELETE('/segments/{id}', { params: { path: { id: segment.id } } })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['segments', projectId] });
      void navigate(`/p/${projectId}/segments`);
    },
  });
  return (
    <>
      <Button color="red" variant="light" onClick={() => setAsking(true)}>
        Delete
      </Button>
      <Modal opened={asking} onClose={() => setAsking(false)} title="Delete this segment?">
        <Stack>
          <Text>
            {segment.name} is deleted; its contacts stay. A campaign that is scheduled or sending to it prevents this.
          </Text>
          {remove.error ? <ErrorState error={remove.error} title="Not deleted" /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setAsking(false)}>
              Cancel
            </Button>
            <Button color="red" loading={remove.isPending} onClick={() => remove.mutate()}>
              Delete segment
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

/** The form of a new segment (POST) or an existing one (PATCH of the changed fields only). */
function SegmentForm({ projectId, segment }: { projectId: string; segment?: Segment }) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState(segment?.name ?? '');
  const [description, setDescription] = useState(segment?.description ?? '');
  const [type, setType] = useState<'DYNAMIC' | 'STATIC'>(segment?.type ?? 'DYNAMIC');
  const [track, setTrack] = useState(segment?.trackMembership ?? false);
  const initialTree = (segment?.condition as FilterTree | null) ?? newTree();
  const [tree, setTree] = useState<FilterTree>(initialTree);
  const [savedTree, setSavedTree] = useState(JSON.stringify(initialTree));
  const [saved, setSaved] = useState(false);
  const changes = segment
    ? {
        ...(name !== segment.name ? { name } : {}),
        ...(description !== (segment.description ?? '') ? { description: description.trim() || null } : {}),
        ...(track !== segment.trackMembership ? { trackMembership: track } : {}),
        ...(segment.type === 'DYNAMIC' && JSON.stringify(tree) !== savedTree ? { condition: tree } : {}),
      }
    : {};
  const save = useMutation({
    meta: { success: 'Segment saved' },
    mutationFn: async () => {
      if (!segment) {
        return unwrap(
          api.POST('/segments', {
            body: { name, description: description.trim() || null, type, trackMembership: type === 'DYNAMIC' ? track : false, ...(type === 'DYNAMIC' ? { condition: tree } : {}) },
          }),
        );
      }
      return unwrap(api.PATCH('/segments/{id}', { params: { path: { id: segment.id } }, body: changes }));
    },
    onSuccess: async (s) => {
      await qc.invalidateQueries({ queryKey: ['segments', projectId] });
      qc.setQueryData(['segment', projectId, s.id], s);
      await qc.invalidateQueries({ queryKey: ['segment-members', projectId, s.id] });
      if (!segment) void navigate(`/p/${projectId}/segments/${s.id}`, { replace: true });
      else {
        setSavedTree(JSON.stringify(tree));
        setSaved(true);
      }
    },
  });
  useEffect(() => setSaved(false), [name, description, track, tree]);
  const errs = formErrors(save.error);
  // A save's condition errors name the tree as it was sent: shown until it changes.
  const [errorsFor, setErrorsFor] = useState('');
  useEffect(() => {
    if (save.error) setErrorsFor(JSON.stringify(tree));
    // biome-ignore lint/correctness/useExhaustiveDependencies: only when a save fails
  }, [save.error]);
  const conditionErrs = errorsFor === JSON.stringify(tree) ? errs.condition : {};
  const dynamic = (segment?.type ?? type) === 'DYNAMIC';
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
      noValidate
    >
      <Stack>
        <Group align="flex-start" grow preventGrowOverflow={false} wrap="wrap">
          <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} error={errs.name} miw={240} />
          <TextInput label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} error={errs.description} miw={240} />
        </Group>
        {segment ? (
          <Group gap="xs">
            <Badge variant="light" color={segment.type === 'DYNAMIC' ? 'blue' : 'gray'}>
              {segment.type}
            </Badge>
            <Text size="sm" c="dimmed">
              Events: <Code>segment.{segment.slug}.entry</Code> and <Code>segment.{segment.slug}.exit</Code>
            </Text>
          </Group>
        ) : (
          <Stack gap={4}>
            <Text size="sm" fw={500} id="segment-type-label">
              Type
            </Text>
            <SegmentedControl
              aria-labelledby="segment-type-label"
              value={type}
              onChange={(v) => setType(v as 'DYNAMIC' | 'STATIC')}
              data={[
                { value: 'DYNAMIC', label: 'Dynamic: contacts matching a filter' },
                { value: 'STATIC', label: 'Static: a list you manage' },
              ]}
              w="fit-content"
            />
          </Stack>
        )}
        {dynamic ? (
          <>
            <Switch
              label="Track membership"
              description="Record who enters and leaves (every 15 minutes, or with Compute) and fire segment events that can start workflows"
              checked={track}
              onChange={(e) => setTrack(e.currentTarget.checked)}
            />
            <Title order={2} size="h4">
              Condition
            </Title>
            <FilterBuilder projectId={projectId} value={tree} onChange={setTree} errors={conditionErrs} />
          </>
        ) : null}
        {errs.other ? <ErrorState error={errs.other} title="Not saved" /> : null}
        <Group justify="flex-end">
          {saved ? (
            <Text size="sm" c="green" role="status">
              Saved
            </Text>
          ) : null}
          <Button type="submit" loading={save.isPending} disabled={!!segment && !Object.keys(changes).length}>
            {segment ? 'Save segment' : 'Create segment'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** /segments/new and /segments/:segmentId: the form, then (saved) members, recounts and delete. */
export default function SegmentEditor() {
  const { projectId } = useCurrentProject();
  const { segmentId } = useParams();
  const segment = useQuery({
    queryKey: ['segment', projectId, segmentId],
    enabled: !!segmentId,
    queryFn: () => unwrap(api.GET('/segments/{id}', { params: { path: { id: segmentId! } } })),
  });
  return (
    <Stack>
      <Anchor component={Link} to={`/p/${projectId}/segments`} size="sm">
        ← Segments
      </Anchor>
      {!segmentId ? (
        <>
          <Title order={1} size="h2">
            New segment
          </Title>
          <Paper withBorder p="md">
            <SegmentForm projectId={projectId} />
          </Paper>
        </>
      ) : segment.isPending ? (
        <Loading />
      ) : segment.error ? (
        <ErrorState error={segment.error} />
      ) : (
        <>
          <Group justify="space-between">
            <Title order={1} size="h2">
              {segment.data.name}
            </Title>
            <DeleteSegment projectId={projectId} segment={segment.data} />
          </Group>
          <Recount projectId={projectId} segment={segment.data} />
          <Paper withBorder p="md">
            <SegmentForm key={segment.data.id} projectId={projectId} segment={segment.data} />
          </Paper>
          {segment.data.type === 'STATIC' ? <StaticMembers projectId={projectId} segment={segment.data} /> : null}
          <Members projectId={projectId} segment={segment.data} />
        </>
      )}
    </Stack>
  );
}
