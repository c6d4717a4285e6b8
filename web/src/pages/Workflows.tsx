import { Alert, Anchor, Badge, Button, Group, Modal, Pagination, Stack, Table, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, fieldError, hasFieldErrors, unwrap } from '../api/client';
import { useWorkflows } from '../api/hooks/workflows';
import { useCurrentProject } from '../api/project';
import { ListPage, ListTable } from '../components/ListPage';
import { EventNameInput } from '../components/workflow/FieldWidgets';
import { StartFromFlow } from '../components/workflow/StartFromFlow';
import { momentWords } from '../api/dates';
import { useTranslation } from 'react-i18next';

const PAGE_SIZE = 25;

/** GET /workflows (page-paginated, searchable) and "New workflow", which opens the editor on the new graph. */
export default function Workflows() {
  const { t } = useTranslation(['workflows', 'common']);
  const { projectId } = useCurrentProject();
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search, 300);
  const [creating, setCreating] = useState(false);
  const [starting, setStarting] = useState(false);
  const list = useWorkflows(projectId, { search: debounced, page, pageSize: PAGE_SIZE });
  return (
    <ListPage
      title={t('list.title')}
      action={
        <Group gap="sm">
          <Button variant="default" onClick={() => setStarting(true)}>
            {t('list.startFromFlow')}
          </Button>
          <Button onClick={() => setCreating(true)}>{t('list.newWorkflow')}</Button>
        </Group>
      }
      description={t('list.description')}
    >
      <TextInput
        label={t('list.search')}
        placeholder={t('list.searchPlaceholder')}
        value={search}
        onChange={(e) => {
          setSearch(e.currentTarget.value);
          setPage(1);
        }}
        maw={360}
      />
      <ListTable
        query={list}
        label={t('list.title')}
        highlightOnHover
        miw={640}
        head={
          <>
            <Table.Th>{t('list.name')}</Table.Th>
            <Table.Th>{t('list.trigger')}</Table.Th>
            <Table.Th>{t('list.state')}</Table.Th>
            <Table.Th ta="right">{t('list.steps')}</Table.Th>
            <Table.Th>{t('list.updated')}</Table.Th>
          </>
        }
        row={(w) => (
          <Table.Tr key={w.id}>
            <Table.Td>
              <Anchor component={Link} to={`/p/${projectId}/workflows/${w.id}`}>
                {w.name}
              </Anchor>
              {w.description ? (
                <Text size="xs" c="dimmed" lineClamp={1}>
                  {w.description}
                </Text>
              ) : null}
            </Table.Td>
            <Table.Td>
              <code>{w.triggerConfig.eventName}</code>
            </Table.Td>
            <Table.Td>
              <Badge variant="light" color={w.enabled ? 'green' : 'gray'}>
                {w.enabled ? t('enabled') : t('disabled')}
              </Badge>
            </Table.Td>
            <Table.Td ta="right">{w.steps.length - 1}</Table.Td>
            <Table.Td>{momentWords(w.updatedAt)}</Table.Td>
          </Table.Tr>
        )}
        empty={debounced ? t('list.noMatch') : t('list.empty')}
        footer={(d) =>
          d.totalPages > 1 ? (
            <Group justify="center" p="sm">
              <Pagination total={d.totalPages} value={page} onChange={setPage} aria-label={t('common:pages')} />
            </Group>
          ) : null
        }
      />
      <Modal opened={creating} onClose={() => setCreating(false)} title={t('list.newWorkflow')}>
        {creating ? <NewWorkflow projectId={projectId} /> : null}
      </Modal>
      <Modal opened={starting} onClose={() => setStarting(false)} title={t('list.startFromFlow')} size="xl">
        {starting ? <StartFromFlow projectId={projectId} /> : null}
      </Modal>
    </ListPage>
  );
}

function NewWorkflow({ projectId }: { projectId: string }) {
  const { t } = useTranslation('workflows');
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [eventName, setEventName] = useState<string | undefined>();
  const create = useMutation({
    meta: { success: t('list.created') },
    mutationFn: () => unwrap(api.POST('/workflows', { body: { name, eventName } })),
    onSuccess: (w) => navigate(`/p/${projectId}/workflows/${w.id}`),
  });
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <Stack>
        <TextInput
          label={t('list.name')}
          required
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={fieldError(create.error, 'name')}
          data-autofocus
        />
        <EventNameInput
          projectId={projectId}
          label={t('list.triggerEvent')}
          required
          value={eventName}
          onChange={setEventName}
          error={fieldError(create.error, 'eventName')}
        />
        {create.error && !hasFieldErrors(create.error) ? (
          <Alert color="red" role="alert">
            {create.error.message}
          </Alert>
        ) : null}
        <Group justify="flex-end">
          <Button type="submit" loading={create.isPending}>
            {t('list.create')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
