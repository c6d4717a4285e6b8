import { useState, type ReactNode } from 'react';
import { Button, Group, List, Modal, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, type Project, unwrap } from '../../api/client';
import { keys } from '../../api/queryKeys';
import { ErrorState } from '../States';
import { numberWords } from '../../api/dates';
import { Section } from './ProjectSections';
import { useTranslation } from 'react-i18next';

/** A destructive action behind a dialog that asks for the project's name. */
export function Confirmed({
  label,
  confirm,
  title,
  what,
  name,
  run,
  pending,
  error,
  children,
}: {
  label: string;
  confirm: string;
  title: string;
  what: ReactNode;
  name: string;
  run: () => void;
  pending: boolean;
  error: unknown;
  children?: ReactNode;
}) {
  const { t } = useTranslation('settings');
  const [opened, setOpened] = useState(false);
  const [typed, setTyped] = useState('');
  return (
    <>
      <Button color="red" variant="light" onClick={() => setOpened(true)}>
        {label}
      </Button>
      <Modal
        opened={opened}
        onClose={() => {
          setOpened(false);
          setTyped('');
        }}
        title={title}
      >
        <Stack>
          {what}
          {children}
          <TextInput label={t('danger.typeName', { name })} value={typed} onChange={(e) => setTyped(e.currentTarget.value)} />
          {error ? <ErrorState error={error} /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setOpened(false)}>
              {t('cancel')}
            </Button>
            <Button color="red" disabled={typed !== name} loading={pending} onClick={run}>
              {confirm}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

/** Reset (wipe the data) and delete: owners only (docs/roles.md), each confirmed with the project's name. */
export function DangerZone({ project }: { project: Project }) {
  const { t } = useTranslation('settings');
  const qc = useQueryClient();
  const navigate = useNavigate();
  const reset = useMutation({
    meta: { success: t('danger.wasReset') },
    mutationFn: () => unwrap(api.POST('/users/@me/projects/{id}/reset', { params: { path: { id: project.id } } })),
    // The account's own data (its projects, the user, the server's config) survives a project reset.
    onSuccess: () => qc.invalidateQueries({ predicate: (q) => ![keys.projects.all(), keys.me(), keys.config()].some(([root]) => q.queryKey[0] === root) }),
  });
  const remove = useMutation({
    meta: { success: t('danger.deleted') },
    mutationFn: () => unwrap(api.DELETE('/users/@me/projects/{id}', { params: { path: { id: project.id } } })),
    onSuccess: () => {
      // Out of the cache first, so `/` does not send the user back to the project just deleted.
      qc.setQueryData<Project[]>(keys.projects.all(), (list) => list?.filter((p) => p.id !== project.id));
      void navigate('/', { replace: true });
      return qc.invalidateQueries({ queryKey: keys.projects.all() });
    },
  });
  const deleted = reset.data ? Object.values(reset.data.deleted).reduce((a, b) => a + b, 0) : 0;
  return (
    <Section title={t('danger.heading')} danger>
      <Stack>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <Text size="sm">{t('danger.resetWhat')}</Text>
          <Group justify="flex-end">
            <Confirmed
              label={t('danger.reset')}
              confirm={t('danger.resetConfirm')}
              title={t('danger.resetTitle')}
              name={project.name}
              what={<Text>{t('danger.resetBody')}</Text>}
              run={() => reset.mutate()}
              pending={reset.isPending}
              error={reset.error}
            >
              {reset.data ? (
                <Text c="green" role="status">
                  {t('danger.resetDone', { rows: numberWords(deleted), executions: numberWords(reset.data.cancelledExecutions) })}
                </Text>
              ) : null}
            </Confirmed>
          </Group>
          <Text size="sm">{t('danger.deleteWhat')}</Text>
          <Group justify="flex-end">
            <Confirmed
              label={t('danger.delete')}
              confirm={t('danger.deleteConfirm')}
              title={t('danger.deleteTitle')}
              name={project.name}
              what={
                <List size="sm">
                  <List.Item>{t('danger.deleteKeys')}</List.Item>
                  <List.Item>{t('danger.deleteData')}</List.Item>
                </List>
              }
              run={() => remove.mutate()}
              pending={remove.isPending}
              error={remove.error}
            />
          </Group>
        </SimpleGrid>
      </Stack>
    </Section>
  );
}
