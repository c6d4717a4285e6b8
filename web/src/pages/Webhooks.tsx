import { useState, type FormEvent } from 'react';
import { Alert, Button, Group, Paper, Stack, TagsInput, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, fieldError, hasFieldErrors, unwrap } from '../api/client';
import { keys } from '../api/queryKeys';
import { useWebhookEndpoints } from '../api/hooks/webhooks';
import { useCurrentProject } from '../api/project';
import { manages } from '../routes';
import { Empty, ErrorState, Loading } from '../components/States';
import { Revealed, SUGGESTED, eventsError, EndpointCard } from '../components/webhooks/EndpointCard';
import { useTranslation } from 'react-i18next';

/** Outbound webhook endpoints (docs/webhooks.md): a secret is shown once, after creation or rotation, and kept in memory only. */
export default function Webhooks() {
  const { t } = useTranslation('settings');
  const { projectId, project } = useCurrentProject();
  const may = manages(project?.role);
  const qc = useQueryClient();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['email.*']);
  const [description, setDescription] = useState('');
  const [revealed, setRevealed] = useState<Revealed | null>(null);
  const endpoints = useWebhookEndpoints(projectId);
  const create = useMutation({
    meta: { success: t('webhooks.added') },
    mutationFn: () => unwrap(api.POST('/webhook-endpoints', { body: { url, events, description: description.trim() || null } })),
    onSuccess: (e) => {
      setUrl('');
      setDescription('');
      setRevealed({ endpointId: e.id, secret: e.secret, previousSecretExpiresAt: null });
      return qc.invalidateQueries({ queryKey: keys.webhooks.all(projectId) });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <Stack>
      <Title order={1} size="h2">
        {t('webhooks.heading')}
      </Title>
      <Text size="sm" c="dimmed">
        {t('webhooks.intro')}
      </Text>
      {!may ? (
        <Alert color="gray" title={t('webhooks.readOnlyTitle')}>
          {t('webhooks.readOnly', { role: t(`roles.${project?.role ?? 'unknown'}`) })}
        </Alert>
      ) : null}
      {may ? (
        <Paper withBorder p="md">
          <form onSubmit={submit} noValidate>
            <Stack gap="sm">
              <Group align="flex-start" grow preventGrowOverflow={false} wrap="wrap">
                <TextInput
                  label={t('webhooks.url')}
                  placeholder={t('webhooks.placeholder')}
                  required
                  value={url}
                  onChange={(e) => setUrl(e.currentTarget.value)}
                  error={fieldError(create.error, 'url')}
                  miw={260}
                />
                <TagsInput
                  label={t('webhooks.events')}
                  description={t('webhooks.eventsHelp')}
                  data={SUGGESTED}
                  value={events}
                  onChange={setEvents}
                  error={eventsError(create.error)}
                  clearable
                  miw={260}
                />
              </Group>
              <TextInput
                label={t('webhooks.description')}
                value={description}
                onChange={(e) => setDescription(e.currentTarget.value)}
                error={fieldError(create.error, 'description')}
              />
              {create.error && !hasFieldErrors(create.error) ? <ErrorState error={create.error} title={t('webhooks.notAdded')} /> : null}
              <Group justify="flex-end">
                <Button type="submit" loading={create.isPending}>
                  {t('webhooks.add')}
                </Button>
              </Group>
            </Stack>
          </form>
        </Paper>
      ) : null}
      {endpoints.isPending ? <Loading /> : null}
      {endpoints.error ? <ErrorState error={endpoints.error} /> : null}
      {endpoints.data && !endpoints.data.length ? <Empty>{t('webhooks.empty')}</Empty> : null}
      {endpoints.data?.map((e) => (
        <EndpointCard
          key={e.id}
          projectId={projectId}
          endpoint={e}
          revealed={revealed?.endpointId === e.id ? revealed : null}
          onRevealed={setRevealed}
          may={may}
        />
      ))}
    </Stack>
  );
}
