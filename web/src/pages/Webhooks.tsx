import { useState, type FormEvent } from 'react';
import { Alert, Badge, Button, Code, Group, Modal, Paper, ScrollArea, Select, Stack, Switch, Table, TagsInput, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, fieldError, hasFieldErrors, ResponseOf, unwrap } from '../api/client';
import { useCurrentProject } from '../api/project';
import { manages } from '../routes';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Copy } from '../components/Copy';
import { Empty, ErrorState, Loading } from '../components/States';
import { momentWords } from '../api/dates';

type Endpoint = ResponseOf<'/webhook-endpoints', 'get'>[number];
type Delivery = ResponseOf<'/webhook-endpoints/{id}/deliveries', 'get'>['data'][number];
type Revealed = { endpointId: string; secret: string; previousSecretExpiresAt: string | null };

/** Patterns docs/webhooks.md lists; any tracked event name may be typed as well. */
const SUGGESTED = ['*', 'email.*', 'contact.*', 'segment.*', 'campaign.*', 'webhook.*', 'email.delivered', 'email.bounced', 'email.opened', 'email.clicked', 'contact.subscribed', 'contact.unsubscribed'];
const when = (iso: string | null) => (iso ? momentWords(iso) : '—');
const STATUS_COLOR: Record<Delivery['status'], string> = { PENDING: 'yellow', DELIVERED: 'green', FAILED: 'red' };

/** The field errors of a 422 on `events` name the item (`events.1`): the first one shows on the input. */
const eventsError = (error: unknown) =>
  fieldError(error, 'events') ?? Object.entries((error as { fields?: Record<string, string> } | null)?.fields ?? {}).find(([f]) => f.startsWith('events.'))?.[1];

/** GET /webhook-endpoints/:id/deliveries: newest first, by cursor, filtered by status; failed ones can be retried. */
function Deliveries({ projectId, endpoint }: { projectId: string; endpoint: Endpoint }) {
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
                    {d.lastStatusCode ?? ''} {d.lastError ? <Text span size="xs" c="dimmed">{d.lastError}</Text> : null}
                    {d.status === 'PENDING' && d.nextAttemptAt ? <Text size="xs" c="dimmed">next: {when(d.nextAttemptAt)}</Text> : null}
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

function SecretOnce({ revealed }: { revealed: Revealed }) {
  return (
    <Alert color="green" title="Signing secret: shown this once" role="status">
      <Stack gap={6}>
        <Group gap="xs" wrap="nowrap">
          <Code data-testid="webhook-secret" style={{ wordBreak: 'break-all' }}>
            {revealed.secret}
          </Code>
          <Copy value={revealed.secret} what="signing secret" />
        </Group>
        <Text size="sm">
          Verify each call with it (any Standard Webhooks library).
          {revealed.previousSecretExpiresAt ? ` The previous secret also signs every call until ${when(revealed.previousSecretExpiresAt)}.` : ''}
        </Text>
      </Stack>
    </Alert>
  );
}

/** PATCH /webhook-endpoints/:id: the URL, the patterns and the description (field errors on their inputs). */
function EditEndpoint({ projectId, endpoint, onClose }: { projectId: string; endpoint: Endpoint; onClose: () => void }) {
  const qc = useQueryClient();
  const [url, setUrl] = useState(endpoint.url);
  const [events, setEvents] = useState<string[]>(endpoint.events);
  const [description, setDescription] = useState(endpoint.description ?? '');
  const save = useMutation({
    meta: { success: 'Endpoint saved' },
    mutationFn: () =>
      unwrap(api.PATCH('/webhook-endpoints/{id}', { params: { path: { id: endpoint.id } }, body: { url, events, description: description.trim() || null } })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['webhooks', projectId] });
      onClose();
    },
  });
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
      noValidate
    >
      <Stack>
        <TextInput label="Endpoint URL" required value={url} onChange={(e) => setUrl(e.currentTarget.value)} error={fieldError(save.error, 'url')} data-autofocus />
        <TagsInput label="Events" description="Exact names, families like email.*, or *" data={SUGGESTED} value={events} onChange={setEvents} error={eventsError(save.error)} clearable />
        <TextInput label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} error={fieldError(save.error, 'description')} />
        {save.error && !hasFieldErrors(save.error) ? <ErrorState error={save.error} title="Not saved" /> : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={save.isPending}>
            Save endpoint
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function EndpointCard({
  projectId,
  endpoint,
  revealed,
  onRevealed,
  may,
}: { projectId: string; endpoint: Endpoint; revealed: Revealed | null; onRevealed: (r: Revealed) => void; may: boolean }) {
  const qc = useQueryClient();
  const [asking, setAsking] = useState<'rotate' | 'delete' | null>(null);
  const [editing, setEditing] = useState(false);
  const [showDeliveries, setShowDeliveries] = useState(false);
  const path = { params: { path: { id: endpoint.id } } };
  const refresh = () => qc.invalidateQueries({ queryKey: ['webhooks', projectId] });
  const toggle = useMutation({ meta: { success: (_d, enabled) => (enabled ? 'Endpoint enabled' : 'Endpoint disabled') }, mutationFn: (enabled: boolean) => unwrap(api.PATCH('/webhook-endpoints/{id}', { ...path, body: { enabled } })), onSuccess: refresh });
  const test = useMutation({
    meta: { success: 'Test event sent' },
    mutationFn: () => unwrap(api.POST('/webhook-endpoints/{id}/test', path)),
    onSuccess: () => {
      setShowDeliveries(true);
      return qc.invalidateQueries({ queryKey: ['webhook-deliveries', projectId, endpoint.id] });
    },
  });
  const rotate = useMutation({
    meta: { success: 'Signing secret rotated' },
    mutationFn: () => unwrap(api.POST('/webhook-endpoints/{id}/rotate-secret', path)),
    onSuccess: (e) => {
      setAsking(null);
      onRevealed({ endpointId: e.id, secret: e.secret, previousSecretExpiresAt: e.previousSecretExpiresAt });
    },
  });
  const remove = useMutation({
    meta: { success: 'Endpoint deleted' },
    mutationFn: () => unwrap(api.DELETE('/webhook-endpoints/{id}', path)),
    onSuccess: () => {
      setAsking(null);
      return refresh();
    },
  });
  const error = toggle.error ?? test.error;
  return (
    <Paper withBorder p="md" component="section" aria-label={endpoint.url}>
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start">
          <Stack gap={4} style={{ minWidth: 0, flex: 1 }}>
            <Group gap="xs">
              <Title order={2} size="h5" style={{ wordBreak: 'break-all' }}>
                {endpoint.url}
              </Title>
              <Badge color={endpoint.enabled ? 'green' : 'gray'} variant="light" data-testid="webhook-status">
                {endpoint.enabled ? 'Enabled' : 'Disabled'}
              </Badge>
            </Group>
            {endpoint.description ? (
              <Text size="sm" c="dimmed">
                {endpoint.description}
              </Text>
            ) : null}
            <Group gap={4}>
              {endpoint.events.map((e) => (
                <Badge key={e} variant="outline" size="sm" tt="none">
                  {e}
                </Badge>
              ))}
            </Group>
            {endpoint.failingSince ? (
              <Text size="sm" c="red">
                Failing since {when(endpoint.failingSince)}; five days of failures disable it.
              </Text>
            ) : null}
            {endpoint.disabledAt && !endpoint.enabled ? (
              <Text size="sm" c="dimmed">
                Disabled {when(endpoint.disabledAt)}; messages wait until it is enabled again.
              </Text>
            ) : null}
          </Stack>
          <Group gap="xs">
            <Switch
              label="Enabled"
              aria-label={`Enabled: ${endpoint.url}`}
              checked={endpoint.enabled}
              disabled={toggle.isPending || !may}
              onChange={(e) => toggle.mutate(e.currentTarget.checked)}
            />
            <Button size="xs" variant="default" onClick={() => test.mutate()} loading={test.isPending} disabled={!endpoint.enabled}>
              Send test
            </Button>
            {may ? (
              <>
                <Button size="xs" variant="default" onClick={() => setEditing(true)}>
                  Edit
                </Button>
                <Button size="xs" variant="default" onClick={() => setAsking('rotate')}>
                  Rotate secret
                </Button>
                <Button size="xs" color="red" variant="light" onClick={() => setAsking('delete')}>
                  Delete
                </Button>
              </>
            ) : null}
          </Group>
        </Group>
        {revealed ? <SecretOnce revealed={revealed} /> : null}
        {error ? <ErrorState error={error} /> : null}
        <Group>
          <Button size="compact-sm" variant="subtle" onClick={() => setShowDeliveries((v) => !v)} aria-expanded={showDeliveries}>
            {showDeliveries ? 'Hide deliveries' : 'Show deliveries'}
          </Button>
        </Group>
        {showDeliveries ? <Deliveries projectId={projectId} endpoint={endpoint} /> : null}
      </Stack>
      <Modal opened={editing} onClose={() => setEditing(false)} title="Edit the endpoint">
        {editing ? <EditEndpoint projectId={projectId} endpoint={endpoint} onClose={() => setEditing(false)} /> : null}
      </Modal>
      <ConfirmDialog
        opened={asking !== null}
        onCancel={() => setAsking(null)}
        title={asking === 'rotate' ? 'Rotate the signing secret?' : 'Delete this endpoint?'}
        message={
          asking === 'rotate'
            ? 'A new secret signs every call from now on; the current one also signs them for 24 hours, so receivers can switch over.'
            : `${endpoint.url} receives nothing more; its delivery log is deleted with it.`
        }
        error={asking === 'rotate' ? rotate.error : remove.error}
        confirmLabel={asking === 'rotate' ? 'Rotate now' : 'Delete endpoint'}
        confirmColor={asking === 'rotate' ? undefined : 'red'}
        loading={asking === 'rotate' ? rotate.isPending : remove.isPending}
        onConfirm={() => (asking === 'rotate' ? rotate.mutate() : remove.mutate())}
      />
    </Paper>
  );
}

/** Outbound webhook endpoints (docs/webhooks.md): a secret is shown once, after creation or rotation, and kept in memory only. */
export default function Webhooks() {
  const { projectId, project } = useCurrentProject();
  const may = manages(project?.role);
  const qc = useQueryClient();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['email.*']);
  const [description, setDescription] = useState('');
  const [revealed, setRevealed] = useState<Revealed | null>(null);
  const endpoints = useQuery({ queryKey: ['webhooks', projectId], queryFn: () => unwrap(api.GET('/webhook-endpoints')) });
  const create = useMutation({
    meta: { success: 'Endpoint added' },
    mutationFn: () => unwrap(api.POST('/webhook-endpoints', { body: { url, events, description: description.trim() || null } })),
    onSuccess: (e) => {
      setUrl('');
      setDescription('');
      setRevealed({ endpointId: e.id, secret: e.secret, previousSecretExpiresAt: null });
      return qc.invalidateQueries({ queryKey: ['webhooks', projectId] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <Stack>
      <Title order={1} size="h2">
        Webhooks
      </Title>
      <Text size="sm" c="dimmed">
        The project's events, pushed to your own systems as signed POSTs (Standard Webhooks).
      </Text>
      {!may ? (
        <Alert color="gray" title="Owners and admins manage webhook endpoints">
          Your role ({project?.role ?? 'unknown'}) may see the endpoints and their deliveries, and send a test, but not add, change, re-secret or delete one.
        </Alert>
      ) : null}
      {may ? (
<Paper withBorder p="md">
        <form onSubmit={submit} noValidate>
          <Stack gap="sm">
            <Group align="flex-start" grow preventGrowOverflow={false} wrap="wrap">
              <TextInput label="Endpoint URL" placeholder="https://example.com/hooks/svc" required value={url} onChange={(e) => setUrl(e.currentTarget.value)} error={fieldError(create.error, 'url')} miw={260} />
              <TagsInput
                label="Events"
                description="Exact names, families like email.*, or *"
                data={SUGGESTED}
                value={events}
                onChange={setEvents}
                error={eventsError(create.error)}
                clearable
                miw={260}
              />
            </Group>
            <TextInput label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} error={fieldError(create.error, 'description')} />
            {create.error && !hasFieldErrors(create.error) ? <ErrorState error={create.error} title="Not added" /> : null}
            <Group justify="flex-end">
              <Button type="submit" loading={create.isPending}>
                Add endpoint
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
) : null}
      {endpoints.isPending ? <Loading /> : null}
      {endpoints.error ? <ErrorState error={endpoints.error} /> : null}
      {endpoints.data && !endpoints.data.length ? <Empty>No webhook endpoints yet: add a URL to receive the project's events.</Empty> : null}
      {endpoints.data?.map((e) => (
        <EndpointCard key={e.id} projectId={projectId} endpoint={e} revealed={revealed?.endpointId === e.id ? revealed : null} onRevealed={setRevealed} may={may} />
      ))}
    </Stack>
  );
}
