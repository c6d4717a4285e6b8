import { Alert, Anchor, Badge, Button, Group, Modal, Pagination, Stack, Table, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, fieldError, hasFieldErrors, unwrap } from '../api/client';
import { useCurrentProject } from '../api/project';
import { ListPage, ListTable } from '../components/ListPage';
import { EventNameInput } from '../components/workflow/FieldWidgets';
import { StartFromFlow } from '../components/workflow/StartFromFlow';
import { momentWords } from '../api/dates';

const PAGE_SIZE = 25;

/** GET /workflows (page-paginated, searchable) and "New workflow", which opens the editor on the new graph. */
export default function Workflows() {
  const { projectId } = useCurrentProject();
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search, 300);
  const [creating, setCreating] = useState(false);
  const [starting, setStarting] = useState(false);
  const list = useQuery({
    queryKey: ['workflows', projectId, page, debounced],
    placeholderData: keepPreviousData,
    queryFn: () => unwrap(api.GET('/workflows', { params: { query: { page, pageSize: PAGE_SIZE, search: debounced || undefined } } })),
  });
  return (
    <ListPage
      title="Workflows"
      action={
        <Group gap="sm">
          <Button variant="default" onClick={() => setStarting(true)}>
            Start from a flow
          </Button>
          <Button onClick={() => setCreating(true)}>New workflow</Button>
        </Group>
      }
      description="A workflow starts for a contact when an event of its trigger is tracked, then runs its steps: emails, delays, conditions, webhooks, contact updates."
    >
      <TextInput label="Search" placeholder="Name or description" value={search} onChange={(e) => {
        setSearch(e.currentTarget.value);
        setPage(1);
      }} maw={360} />
      <ListTable
        query={list}
        label="Workflows"
        highlightOnHover
        miw={640}
        head={
          <>
            <Table.Th>Name</Table.Th>
            <Table.Th>Trigger</Table.Th>
            <Table.Th>State</Table.Th>
            <Table.Th ta="right">Steps</Table.Th>
            <Table.Th>Updated</Table.Th>
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
                {w.enabled ? 'Enabled' : 'Disabled'}
              </Badge>
            </Table.Td>
            <Table.Td ta="right">{w.steps.length - 1}</Table.Td>
            <Table.Td>{momentWords(w.updatedAt)}</Table.Td>
          </Table.Tr>
        )}
        empty={debounced ? 'No workflow matches this search.' : 'No workflows yet: "Start from a flow" offers ready-made ones; "New workflow" starts one from the event that triggers it.'}
        footer={(d) =>
          d.totalPages > 1 ? (
            <Group justify="center" p="sm">
              <Pagination total={d.totalPages} value={page} onChange={setPage} aria-label="Pages" />
            </Group>
          ) : null
        }
      />
      <Modal opened={creating} onClose={() => setCreating(false)} title="New workflow">
        {creating ? <NewWorkflow projectId={projectId} /> : null}
      </Modal>
      <Modal opened={starting} onClose={() => setStarting(false)} title="Start from a flow" size="xl">
        {starting ? <StartFromFlow projectId={projectId} /> : null}
      </Modal>
    </ListPage>
  );
}

function NewWorkflow({ projectId }: { projectId: string }) {
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [eventName, setEventName] = useState<string | undefined>();
  const create = useMutation({
    meta: { success: 'Workflow created' },
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
        <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} error={fieldError(create.error, 'name')} data-autofocus />
        <EventNameInput projectId={projectId} label="Trigger event" required value={eventName} onChange={setEventName} error={fieldError(create.error, 'eventName')} />
        {create.error && !hasFieldErrors(create.error) ? (
          <Alert color="red" role="alert">
            {create.error.message}
          </Alert>
        ) : null}
        <Group justify="flex-end">
          <Button type="submit" loading={create.isPending}>
            Create workflow
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
