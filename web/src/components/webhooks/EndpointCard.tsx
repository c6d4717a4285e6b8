import { useState } from 'react';
import { Alert, Badge, Button, Code, Group, Modal, Paper, Stack, Switch, TagsInput, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, fieldError, hasFieldErrors, unwrap } from '../../api/client';
import { ConfirmDialog } from '../ConfirmDialog';
import { Copy } from '../Copy';
import { ErrorState } from '../States';
import { Deliveries } from './Deliveries';
import { type Endpoint, when } from './endpoint';

export type Revealed = { endpointId: string; secret: string; previousSecretExpiresAt: string | null };

/** Patterns docs/webhooks.md lists; any tracked event name may be typed as well. */
export const SUGGESTED = [
  '*',
  'email.*',
  'contact.*',
  'segment.*',
  'campaign.*',
  'webhook.*',
  'email.delivered',
  'email.bounced',
  'email.opened',
  'email.clicked',
  'contact.subscribed',
  'contact.unsubscribed',
];
/** The field errors of a 422 on `events` name the item (`events.1`): the first one shows on the input. */
export const eventsError = (error: unknown) =>
  fieldError(error, 'events') ??
  Object.entries((error as { fields?: Record<string, string> } | null)?.fields ?? {}).find(([f]) => f.startsWith('events.'))?.[1];

export function SecretOnce({ revealed }: { revealed: Revealed }) {
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
export function EditEndpoint({ projectId, endpoint, onClose }: { projectId: string; endpoint: Endpoint; onClose: () => void }) {
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
        <TextInput
          label="Endpoint URL"
          required
          value={url}
          onChange={(e) => setUrl(e.currentTarget.value)}
          error={fieldError(save.error, 'url')}
          data-autofocus
        />
        <TagsInput
          label="Events"
          description="Exact names, families like email.*, or *"
          data={SUGGESTED}
          value={events}
          onChange={setEvents}
          error={eventsError(save.error)}
          clearable
        />
        <TextInput
          label="Description"
          value={description}
          onChange={(e) => setDescription(e.currentTarget.value)}
          error={fieldError(save.error, 'description')}
        />
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

export function EndpointCard({
  projectId,
  endpoint,
  revealed,
  onRevealed,
  may,
}: {
  projectId: string;
  endpoint: Endpoint;
  revealed: Revealed | null;
  onRevealed: (r: Revealed) => void;
  may: boolean;
}) {
  const qc = useQueryClient();
  const [asking, setAsking] = useState<'rotate' | 'delete' | null>(null);
  const [editing, setEditing] = useState(false);
  const [showDeliveries, setShowDeliveries] = useState(false);
  const path = { params: { path: { id: endpoint.id } } };
  const refresh = () => qc.invalidateQueries({ queryKey: ['webhooks', projectId] });
  const toggle = useMutation({
    meta: { success: (_d, enabled) => (enabled ? 'Endpoint enabled' : 'Endpoint disabled') },
    mutationFn: (enabled: boolean) => unwrap(api.PATCH('/webhook-endpoints/{id}', { ...path, body: { enabled } })),
    onSuccess: refresh,
  });
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
