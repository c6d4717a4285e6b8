import { useState } from 'react';
import { Alert, Button, Code, Group, Modal, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { forgetKeys, rememberKeys, revealedKeys } from '../api/keys';
import { useCurrentProject } from '../api/project';
import { manages } from '../routes';
import { Copy } from '../components/Copy';
import { ScopedApiKeys } from '../components/ScopedApiKeys';
import { ErrorState, Loading } from '../components/States';

/** Full keys, right after creation or rotation: shown once, with copy buttons. */
export function NewKeys({ projectId }: { projectId: string }) {
  const [keys, setKeys] = useState(() => revealedKeys(projectId));
  if (!keys) return null;
  return (
    <Alert color="green" title="Your new API keys — shown once" role="region" aria-label="New API keys">
      <Text size="sm" mb="sm">
        Copy them now: only their last four characters are shown again. Keep the secret key on your servers.
      </Text>
      <Table>
        <Table.Tbody>
          {[
            ['Secret key', keys.secretKey],
            ['Public key', keys.publicKey],
          ].map(([label, value]) => (
            <Table.Tr key={label}>
              <Table.Th>{label}</Table.Th>
              <Table.Td>
                <Code data-testid={label === 'Secret key' ? 'full-secret-key' : 'full-public-key'}>{value}</Code>
              </Table.Td>
              <Table.Td>
                <Copy value={value} what={label.toLowerCase()} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Button
        mt="sm"
        size="xs"
        variant="default"
        onClick={() => {
          forgetKeys(projectId);
          setKeys(undefined);
        }}
      >
        I have copied them
      </Button>
    </Alert>
  );
}

export default function ApiKeys() {
  const { projectId, project, projects } = useCurrentProject();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [shown, setShown] = useState(0);
  const qc = useQueryClient();
  if (projects.isPending) return <Loading />;
  if (!project) return <ErrorState error={projects.error ?? new Error('Project not found')} />;
  const mayRotate = manages(project.role);

  async function rotate() {
    setBusy(true);
    setError(null);
    try {
      const rotated = await unwrap(api.POST('/users/@me/projects/{id}/regenerate-keys', { params: { path: { id: projectId } } }));
      rememberKeys(projectId, { publicKey: rotated.publicKey, secretKey: rotated.secretKey });
      setShown((n) => n + 1);
      setConfirming(false);
      await qc.invalidateQueries({ queryKey: ['projects'] });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Stack>
      <Title order={1} size="h2">
        API keys
      </Title>
      <NewKeys key={shown} projectId={projectId} />
      <Paper withBorder p="md">
        <Table aria-label="API keys">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Key</Table.Th>
              <Table.Th>Value</Table.Th>
              <Table.Th>Used for</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            <Table.Tr>
              <Table.Td>Secret key</Table.Td>
              <Table.Td>
                <Code data-testid="masked-secret-key">{project.secretKey}</Code>
              </Table.Td>
              <Table.Td>Every API route, from your servers only</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Td>Public key</Table.Td>
              <Table.Td>
                <Code data-testid="masked-public-key">{project.publicKey}</Code>
              </Table.Td>
              <Table.Td>POST /v1/track, safe in a web page</Table.Td>
            </Table.Tr>
          </Table.Tbody>
        </Table>
      </Paper>
      {mayRotate ? (
        <Group>
          <Button color="red" variant="light" onClick={() => setConfirming(true)}>
            Rotate keys
          </Button>
        </Group>
      ) : (
        <Text size="sm" c="dimmed">
          Only owners and admins may rotate the keys.
        </Text>
      )}
      {error ? <ErrorState error={error} title="The keys were not rotated" /> : null}
      {mayRotate ? (
        <ScopedApiKeys projectId={projectId} />
      ) : (
        <Text size="sm" c="dimmed">
          Only owners and admins manage scoped API keys.
        </Text>
      )}
      <Paper withBorder p="md">
        <Text fw={600} mb="xs">
          Send an email
        </Text>
        <Code block>{`curl ${window.location.origin}/v1/send \\
  -H "Authorization: Bearer <secret key>" -H "Content-Type: application/json" \\
  -d '{"to":"you@example.com","from":"hello@yourdomain.com","subject":"Hello","body":"<p>It works</p>"}'`}</Code>
      </Paper>
      <Modal opened={confirming} onClose={() => setConfirming(false)} title="Rotate both API keys?">
        <Stack>
          <Text>The old keys stop working at once: every server and page using them fails until it has the new ones.</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(false)}>
              Cancel
            </Button>
            <Button color="red" loading={busy} onClick={rotate}>
              Rotate now
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
