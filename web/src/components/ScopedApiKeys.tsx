import { useState, type FormEvent } from 'react';
import { Alert, Badge, Button, Checkbox, Code, Group, Modal, Paper, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, fieldError, hasFieldErrors, ResponseOf, unwrap } from '../api/client';
import { ConfirmDialog } from './ConfirmDialog';
import { Copy } from './Copy';
import { Empty, ErrorState, Loading } from './States';
import { momentWords } from '../api/dates';

type Key = ResponseOf<'/api-keys', 'get'>[number];
type Scope = Key['scopes'][number];

/** The scopes a key may hold (docs/api.md "Scoped API keys"), with what each opens. */
const SCOPES: Array<{ scope: Scope; what: string }> = [
  { scope: 'send', what: 'POST /v1/send and SMTP submission' },
  { scope: 'track', what: 'POST /v1/track and the event routes' },
  { scope: 'contacts:read', what: 'Read contacts, counts and exports' },
  { scope: 'contacts:write', what: 'Create, change, import and delete contacts' },
  { scope: 'campaigns', what: 'Campaigns and their reports' },
  { scope: 'templates', what: 'Templates' },
  { scope: 'full', what: 'Everything, including managing keys' },
];
const when = (iso: string | null) => (iso ? momentWords(iso) : 'Never');

/** The "Create API key" dialog: a name and scopes, then the secret, shown this once. */
function CreateKey({ projectId, onClose }: { projectId: string; onClose: () => void }) {
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['send']);
  const create = useMutation({
    meta: { success: 'API key created' },
    mutationFn: () => unwrap(api.POST('/api-keys', { body: { name, scopes: scopes as Scope[] } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['api-keys', projectId] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  const secret = create.data?.secret;
  return (
    <Modal opened onClose={onClose} title="Create API key" closeButtonProps={{ 'aria-label': 'Close' }}>
      {secret ? (
        <Stack>
          <Alert color="green" title="Your new API key — shown once" role="region" aria-label="New API key">
            <Text size="sm" mb="sm">
              Copy it now: only its first characters are shown again.
            </Text>
            <Group wrap="nowrap">
              <Code data-testid="new-api-key" style={{ wordBreak: 'break-all' }}>
                {secret}
              </Code>
              <Copy value={secret} what="API key" />
            </Group>
          </Alert>
          <Group justify="flex-end">
            <Button onClick={onClose}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <form onSubmit={submit} noValidate>
          <Stack>
            <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} error={fieldError(create.error, 'name')} />
            <Checkbox.Group label="Scopes" value={scopes} onChange={setScopes} error={fieldError(create.error, 'scopes')}>
              <Stack gap={6} mt={6}>
                {SCOPES.map(({ scope, what }) => (
                  <Checkbox key={scope} value={scope} label={scope} description={what} />
                ))}
              </Stack>
            </Checkbox.Group>
            {create.error && !hasFieldErrors(create.error) ? <ErrorState error={create.error} title="Not created" /> : null}
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                Cancel
              </Button>
              <Button type="submit" loading={create.isPending}>
                Create API key
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
  const qc = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<Key | null>(null);
  const keys = useQuery({ queryKey: ['api-keys', projectId], queryFn: () => unwrap(api.GET('/api-keys')) });
  const revoke = useMutation({
    meta: { success: 'API key revoked' },
    mutationFn: (id: string) => unwrap(api.DELETE('/api-keys/{id}', { params: { path: { id } } })),
    onSuccess: async () => {
      setRevoking(null);
      await qc.invalidateQueries({ queryKey: ['api-keys', projectId] });
    },
  });
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2} size="h3">
          Scoped API keys
        </Title>
        <Button onClick={() => setCreating(true)}>Create API key</Button>
      </Group>
      <Text size="sm" c="dimmed">
        Keys for one job each: a key only reaches the routes of its scopes, and revoking it stops it at once.
      </Text>
      {keys.isPending ? <Loading /> : null}
      {keys.error ? <ErrorState error={keys.error} /> : null}
      {keys.data && !keys.data.length ? <Empty>No scoped API keys yet.</Empty> : null}
      {keys.data?.length ? (
        <Paper withBorder p="md">
          <Table aria-label="Scoped API keys">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Scopes</Table.Th>
                <Table.Th>Key</Table.Th>
                <Table.Th>Created by</Table.Th>
                <Table.Th>Last used</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {keys.data.map((k) => (
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
                  <Table.Td>{k.createdBy ?? 'An API key'}</Table.Td>
                  <Table.Td>{when(k.lastUsedAt)}</Table.Td>
                  <Table.Td>
                    <Button size="xs" color="red" variant="light" onClick={() => setRevoking(k)}>
                      Revoke
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Paper>
      ) : null}
      {creating ? <CreateKey projectId={projectId} onClose={() => setCreating(false)} /> : null}
      <ConfirmDialog
        opened={!!revoking}
        title="Revoke this API key?"
        message={`${revoking?.name ?? 'The key'} stops working at once: every request made with it fails from now on.`}
        confirmLabel="Revoke"
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
