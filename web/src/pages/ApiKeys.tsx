import { useState } from 'react';
import { Alert, Button, Code, Group, Modal, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { keys } from '../api/queryKeys';
import { forgetKeys, rememberKeys, revealedKeys } from '../api/keys';
import { useCurrentProject } from '../api/project';
import { manages } from '../routes';
import { Copy } from '../components/Copy';
import { ScopedApiKeys } from '../components/ScopedApiKeys';
import { ErrorState, Loading } from '../components/States';
import { useTranslation } from 'react-i18next';

/** The curl example: code, not words, apart from the key's stand-in. */
const sendExample = (origin: string, key: string) => `curl ${origin}/v1/send \\
  -H "Authorization: Bearer <${key}>" -H "Content-Type: application/json" \\
  -d '{"to":"you@example.com","from":"hello@yourdomain.com","subject":"Hello","body":"<p>It works</p>"}'`;

/** Full keys, right after creation or rotation: shown once, with copy buttons. */
export function NewKeys({ projectId }: { projectId: string }) {
  const { t } = useTranslation('settings');
  const [keys, setKeys] = useState(() => revealedKeys(projectId));
  if (!keys) return null;
  return (
    <Alert color="green" title={t('apiKeys.newTitle')} role="region" aria-label={t('apiKeys.newLabel')}>
      <Text size="sm" mb="sm">
        {t('apiKeys.newBody')}
      </Text>
      <Table>
        <Table.Tbody>
          {[
            { id: 'full-secret-key', label: t('apiKeys.secretKey'), what: t('apiKeys.copySecret'), value: keys.secretKey },
            { id: 'full-public-key', label: t('apiKeys.publicKey'), what: t('apiKeys.copyPublic'), value: keys.publicKey },
          ].map(({ id, label, what, value }) => (
            <Table.Tr key={id}>
              <Table.Th>{label}</Table.Th>
              <Table.Td>
                <Code data-testid={id}>{value}</Code>
              </Table.Td>
              <Table.Td>
                <Copy value={value} what={what} />
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
        {t('apiKeys.copiedThem')}
      </Button>
    </Alert>
  );
}

export default function ApiKeys() {
  const { t } = useTranslation('settings');
  const { projectId, project, projects } = useCurrentProject();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [shown, setShown] = useState(0);
  const qc = useQueryClient();
  if (projects.isPending) return <Loading />;
  if (!project) return <ErrorState error={projects.error ?? new Error(t('apiKeys.projectNotFound'))} />;
  const mayRotate = manages(project.role);

  async function rotate() {
    setBusy(true);
    setError(null);
    try {
      const rotated = await unwrap(api.POST('/users/@me/projects/{id}/regenerate-keys', { params: { path: { id: projectId } } }));
      rememberKeys(projectId, { publicKey: rotated.publicKey, secretKey: rotated.secretKey });
      setShown((n) => n + 1);
      setConfirming(false);
      await qc.invalidateQueries({ queryKey: keys.projects.all() });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Stack>
      <Title order={1} size="h2">
        {t('apiKeys.heading')}
      </Title>
      <NewKeys key={shown} projectId={projectId} />
      <Paper withBorder p="md">
        <Table aria-label={t('apiKeys.table')}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('apiKeys.key')}</Table.Th>
              <Table.Th>{t('apiKeys.value')}</Table.Th>
              <Table.Th>{t('apiKeys.usedFor')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            <Table.Tr>
              <Table.Td>{t('apiKeys.secretKey')}</Table.Td>
              <Table.Td>
                <Code data-testid="masked-secret-key">{project.secretKey}</Code>
              </Table.Td>
              <Table.Td>{t('apiKeys.secretUse')}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Td>{t('apiKeys.publicKey')}</Table.Td>
              <Table.Td>
                <Code data-testid="masked-public-key">{project.publicKey}</Code>
              </Table.Td>
              <Table.Td>{t('apiKeys.publicUse')}</Table.Td>
            </Table.Tr>
          </Table.Tbody>
        </Table>
      </Paper>
      {mayRotate ? (
        <Group>
          <Button color="red" variant="light" onClick={() => setConfirming(true)}>
            {t('apiKeys.rotate')}
          </Button>
        </Group>
      ) : (
        <Text size="sm" c="dimmed">
          {t('apiKeys.mayNotRotate')}
        </Text>
      )}
      {error ? <ErrorState error={error} title={t('apiKeys.notRotated')} /> : null}
      {mayRotate ? (
        <ScopedApiKeys projectId={projectId} />
      ) : (
        <Text size="sm" c="dimmed">
          {t('apiKeys.mayNotScope')}
        </Text>
      )}
      <Paper withBorder p="md">
        <Text fw={600} mb="xs">
          {t('apiKeys.sendExample')}
        </Text>
        <Code block>{sendExample(window.location.origin, t('apiKeys.secretPlaceholder'))}</Code>
      </Paper>
      <Modal opened={confirming} onClose={() => setConfirming(false)} title={t('apiKeys.rotateTitle')}>
        <Stack>
          <Text>{t('apiKeys.rotateBody')}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(false)}>
              {t('cancel')}
            </Button>
            <Button color="red" loading={busy} onClick={rotate}>
              {t('apiKeys.rotateNow')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
