import { useState } from 'react';
import { Alert, Badge, Button, Code, Group, Modal, Paper, Stack, Switch, TagsInput, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, fieldError, hasFieldErrors, unwrap } from '../../api/client';
import { keys } from '../../api/queryKeys';
import { ConfirmDialog } from '../dialogs/ConfirmDialog';
import { Copy } from '../Copy';
import { ErrorState } from '../States';
import { Deliveries } from './Deliveries';
import { type Endpoint, when } from './endpoint';
import { useTranslation } from 'react-i18next';

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
  const { t } = useTranslation('settings');
  return (
    <Alert color="green" title={t('endpoint.secretTitle')} role="status">
      <Stack gap={6}>
        <Group gap="xs" wrap="nowrap">
          <Code data-testid="webhook-secret" style={{ wordBreak: 'break-all' }}>
            {revealed.secret}
          </Code>
          <Copy value={revealed.secret} what={t('endpoint.secretWhat')} />
        </Group>
        <Text size="sm">
          {t('endpoint.verifyWith')}
          {revealed.previousSecretExpiresAt ? ` ${t('endpoint.previousSecret', { when: when(revealed.previousSecretExpiresAt) })}` : null}
        </Text>
      </Stack>
    </Alert>
  );
}

/** PATCH /webhook-endpoints/:id: the URL, the patterns and the description (field errors on their inputs). */
export function EditEndpoint({ projectId, endpoint, onClose }: { projectId: string; endpoint: Endpoint; onClose: () => void }) {
  const { t } = useTranslation('settings');
  const qc = useQueryClient();
  const [url, setUrl] = useState(endpoint.url);
  const [events, setEvents] = useState<string[]>(endpoint.events);
  const [description, setDescription] = useState(endpoint.description ?? '');
  const save = useMutation({
    meta: { success: t('endpoint.saved') },
    mutationFn: () =>
      unwrap(api.PATCH('/webhook-endpoints/{id}', { params: { path: { id: endpoint.id } }, body: { url, events, description: description.trim() || null } })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: keys.webhooks.all(projectId) });
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
          label={t('webhooks.url')}
          required
          value={url}
          onChange={(e) => setUrl(e.currentTarget.value)}
          error={fieldError(save.error, 'url')}
          data-autofocus
        />
        <TagsInput
          label={t('webhooks.events')}
          description={t('webhooks.eventsHelp')}
          data={SUGGESTED}
          value={events}
          onChange={setEvents}
          error={eventsError(save.error)}
          clearable
        />
        <TextInput
          label={t('webhooks.description')}
          value={description}
          onChange={(e) => setDescription(e.currentTarget.value)}
          error={fieldError(save.error, 'description')}
        />
        {save.error && !hasFieldErrors(save.error) ? <ErrorState error={save.error} title={t('notSaved')} /> : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('cancel')}
          </Button>
          <Button type="submit" loading={save.isPending}>
            {t('endpoint.save')}
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
  const { t } = useTranslation('settings');
  const qc = useQueryClient();
  const [asking, setAsking] = useState<'rotate' | 'delete' | null>(null);
  const [editing, setEditing] = useState(false);
  const [showDeliveries, setShowDeliveries] = useState(false);
  const path = { params: { path: { id: endpoint.id } } };
  const refresh = () => qc.invalidateQueries({ queryKey: keys.webhooks.all(projectId) });
  const toggle = useMutation({
    meta: { success: (_d, enabled) => (enabled ? t('endpoint.enabledToast') : t('endpoint.disabledToast')) },
    mutationFn: (enabled: boolean) => unwrap(api.PATCH('/webhook-endpoints/{id}', { ...path, body: { enabled } })),
    onSuccess: refresh,
  });
  const test = useMutation({
    meta: { success: t('endpoint.testSent') },
    mutationFn: () => unwrap(api.POST('/webhook-endpoints/{id}/test', path)),
    onSuccess: () => {
      setShowDeliveries(true);
      return qc.invalidateQueries({ queryKey: keys.webhooks.deliveries(projectId, endpoint.id) });
    },
  });
  const rotate = useMutation({
    meta: { success: t('endpoint.rotated') },
    mutationFn: () => unwrap(api.POST('/webhook-endpoints/{id}/rotate-secret', path)),
    onSuccess: (e) => {
      setAsking(null);
      onRevealed({ endpointId: e.id, secret: e.secret, previousSecretExpiresAt: e.previousSecretExpiresAt });
    },
  });
  const remove = useMutation({
    meta: { success: t('endpoint.deleted') },
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
                {endpoint.enabled ? t('endpoint.enabled') : t('endpoint.disabled')}
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
                {t('endpoint.failing', { when: when(endpoint.failingSince) })}
              </Text>
            ) : null}
            {endpoint.disabledAt && !endpoint.enabled ? (
              <Text size="sm" c="dimmed">
                {t('endpoint.disabledSince', { when: when(endpoint.disabledAt) })}
              </Text>
            ) : null}
          </Stack>
          <Group gap="xs">
            <Switch
              label={t('endpoint.enabled')}
              aria-label={t('endpoint.enabledOf', { url: endpoint.url })}
              checked={endpoint.enabled}
              disabled={toggle.isPending || !may}
              onChange={(e) => toggle.mutate(e.currentTarget.checked)}
            />
            <Button size="xs" variant="default" onClick={() => test.mutate()} loading={test.isPending} disabled={!endpoint.enabled}>
              {t('endpoint.sendTest')}
            </Button>
            {may ? (
              <>
                <Button size="xs" variant="default" onClick={() => setEditing(true)}>
                  {t('endpoint.edit')}
                </Button>
                <Button size="xs" variant="default" onClick={() => setAsking('rotate')}>
                  {t('endpoint.rotate')}
                </Button>
                <Button size="xs" color="red" variant="light" onClick={() => setAsking('delete')}>
                  {t('endpoint.delete')}
                </Button>
              </>
            ) : null}
          </Group>
        </Group>
        {revealed ? <SecretOnce revealed={revealed} /> : null}
        {error ? <ErrorState error={error} /> : null}
        <Group>
          <Button size="compact-sm" variant="subtle" onClick={() => setShowDeliveries((v) => !v)} aria-expanded={showDeliveries}>
            {showDeliveries ? t('endpoint.hideDeliveries') : t('endpoint.showDeliveries')}
          </Button>
        </Group>
        {showDeliveries ? <Deliveries projectId={projectId} endpoint={endpoint} /> : null}
      </Stack>
      <Modal opened={editing} onClose={() => setEditing(false)} title={t('endpoint.editTitle')}>
        {editing ? <EditEndpoint projectId={projectId} endpoint={endpoint} onClose={() => setEditing(false)} /> : null}
      </Modal>
      <ConfirmDialog
        opened={asking !== null}
        onCancel={() => setAsking(null)}
        title={asking === 'rotate' ? t('endpoint.rotateTitle') : t('endpoint.deleteTitle')}
        message={asking === 'rotate' ? t('endpoint.rotateMessage') : t('endpoint.deleteMessage', { url: endpoint.url })}
        error={asking === 'rotate' ? rotate.error : remove.error}
        confirmLabel={asking === 'rotate' ? t('endpoint.rotateNow') : t('endpoint.deleteEndpoint')}
        confirmColor={asking === 'rotate' ? undefined : 'red'}
        loading={asking === 'rotate' ? rotate.isPending : remove.isPending}
        onConfirm={() => (asking === 'rotate' ? rotate.mutate() : remove.mutate())}
      />
    </Paper>
  );
}
