import { useState, type FormEvent } from 'react';
import { Alert, Badge, Button, Checkbox, Code, Group, Modal, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, fieldError, hasFieldErrors, ResponseOf, unwrap } from '../api/client';
import { keys } from '../api/queryKeys';
import { useApiKeys } from '../api/hooks/apiKeys';
import { ConfirmDialog } from './dialogs/ConfirmDialog';
import { Copy } from './Copy';
import { ErrorState } from './States';
import { ListTable } from './ListPage';
import { momentWords } from '../api/dates';
import { useTranslation } from 'react-i18next';

type Key = ResponseOf<'/api-keys', 'get'>[number];
type Scope = Key['scopes'][number];

/**
 * The scopes a key may hold (docs/api.md "Scoped API keys"), each with the catalogue key of what it
 * opens; the scope itself is shown as the API names it, since that is what a key's user types.
 */
const SCOPES = [
  { scope: 'send', what: 'send' },
  { scope: 'track', what: 'track' },
  { scope: 'contacts:read', what: 'contactsRead' },
  { scope: 'contacts:write', what: 'contactsWrite' },
  { scope: 'campaigns', what: 'campaigns' },
  { scope: 'templates', what: 'templates' },
  { scope: 'full', what: 'full' },
] as const satisfies ReadonlyArray<{ scope: Scope; what: string }>;

/** The "Create API key" dialog: a name and scopes, then the secret, shown this once. */
function CreateKey({ projectId, onClose }: { projectId: string; onClose: () => void }) {
  const { t } = useTranslation('settings');
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['send']);
  const create = useMutation({
    meta: { success: t('scopedKeys.created') },
    mutationFn: () => unwrap(api.POST('/api-keys', { body: { name, scopes: scopes as Scope[] } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.apiKeys.all(projectId) }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  const secret = create.data?.secret;
  return (
    <Modal opened onClose={onClose} title={t('scopedKeys.create')} closeButtonProps={{ 'aria-label': t('close') }}>
      {secret ? (
        <Stack>
          <Alert color="green" title={t('scopedKeys.newTitle')} role="region" aria-label={t('scopedKeys.newLabel')}>
            <Text size="sm" mb="sm">
              {t('scopedKeys.newBody')}
            </Text>
            <Group wrap="nowrap">
              <Code data-testid="new-api-key" style={{ wordBreak: 'break-all' }}>
                {secret}
              </Code>
              <Copy value={secret} what={t('scopedKeys.copyWhat')} />
            </Group>
          </Alert>
          <Group justify="flex-end">
            <Button onClick={onClose}>{t('scopedKeys.done')}</Button>
          </Group>
        </Stack>
      ) : (
        <form onSubmit={submit} noValidate>
          <Stack>
            <TextInput
              label={t('scopedKeys.name')}
              required
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              error={fieldError(create.error, 'name')}
            />
            <Checkbox.Group label={t('scopedKeys.scopes')} value={scopes} onChange={setScopes} error={fieldError(create.error, 'scopes')}>
              <Stack gap={6} mt={6}>
                {SCOPES.map(({ scope, what }) => (
                  <Checkbox key={scope} value={scope} label={scope} description={t(`scopedKeys.scopeWhat.${what}`)} />
                ))}
              </Stack>
            </Checkbox.Group>
            {create.error && !hasFieldErrors(create.error) ? <ErrorState error={create.error} title={t('scopedKeys.notCreated')} /> : null}
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                {t('cancel')}
              </Button>
              <Button type="submit" loading={create.isPending}>
                {t('scopedKeys.create')}
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}

/** Named keys with scopes, beside the project's secret/public pair; owners and admins only. */
export function ScopedApiKeys({ projectId }: { projectId: string }) {
  const { t } = useTranslation('settings');
  const when = (iso: string | null) => (iso ? momentWords(iso) : t('scopedKeys.never'));
  const qc = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<Key | null>(null);
  const apiKeys = useApiKeys(projectId);
  const revoke = useMutation({
    meta: { success: t('scopedKeys.revoked') },
    mutationFn: (id: string) => unwrap(api.DELETE('/api-keys/{id}', { params: { path: { id } } })),
    onSuccess: async () => {
      setRevoking(null);
      await qc.invalidateQueries({ queryKey: keys.apiKeys.all(projectId) });
    },
  });
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2} size="h3">
          {t('scopedKeys.heading')}
        </Title>
        <Button onClick={() => setCreating(true)}>{t('scopedKeys.create')}</Button>
      </Group>
      <Text size="sm" c="dimmed">
        {t('scopedKeys.intro')}
      </Text>
      <ListTable
        query={apiKeys}
        items={(list) => list}
        label={t('scopedKeys.heading')}
        head={
          <>
            <Table.Th>{t('scopedKeys.name')}</Table.Th>
            <Table.Th>{t('scopedKeys.scopes')}</Table.Th>
            <Table.Th>{t('scopedKeys.key')}</Table.Th>
            <Table.Th>{t('scopedKeys.createdBy')}</Table.Th>
            <Table.Th>{t('scopedKeys.lastUsed')}</Table.Th>
            <Table.Th />
          </>
        }
        row={(k) => (
          <Table.Tr key={k.id}>
            <Table.Td>{k.name}</Table.Td>
            <Table.Td>
              <Group gap={4}>
                {k.scopes.map((s) => (
                  <Badge key={s} variant="light" tt="none">
                    {s}
                  </Badge>
                ))}
              </Group>
            </Table.Td>
            <Table.Td>
              <Code>{k.prefix}…</Code>
            </Table.Td>
            <Table.Td>{k.createdBy ?? t('scopedKeys.byApiKey')}</Table.Td>
            <Table.Td>{when(k.lastUsedAt)}</Table.Td>
            <Table.Td>
              <Button size="xs" color="red" variant="light" onClick={() => setRevoking(k)}>
                {t('scopedKeys.revoke')}
              </Button>
            </Table.Td>
          </Table.Tr>
        )}
        empty={t('scopedKeys.empty')}
      />
      {creating ? <CreateKey projectId={projectId} onClose={() => setCreating(false)} /> : null}
      <ConfirmDialog
        opened={!!revoking}
        title={t('scopedKeys.revokeTitle')}
        message={t('scopedKeys.revokeMessage', { name: revoking?.name ?? t('scopedKeys.theKey') })}
        confirmLabel={t('scopedKeys.revoke')}
        confirmColor="red"
        loading={revoke.isPending}
        error={revoke.error}
        onConfirm={() => revoking && revoke.mutate(revoking.id)}
        onCancel={() => {
          revoke.reset();
          setRevoking(null);
        }}
      />
    </Stack>
  );
}
