import {
  Alert,
  Anchor,
  Badge,
  Button,
  Grid,
  Group,
  Modal,
  Pagination,
  Paper,
  ScrollArea,
  SegmentedControl,
  Stack,
  Table,
  Text,
  TextInput,
  Timeline,
  Title,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { useCurrentProject } from '../api/project';
import { useAppConfig } from '../api/session';
import { EXECUTION_STATUSES, STATUS_COLORS, temporalExecutionUrl, type Workflow } from '../api/workflows';
import { Empty, ErrorState, Loading } from '../components/States';
import { stepStory, waitWords } from '../components/workflow/stepStory';
import { RawOutput } from '../components/workflow/RawOutput';
import { momentWords } from '../api/dates';

const PAGE_SIZE = 25;
const ACTIVE = new Set(['RUNNING', 'WAITING']);
/** While something may still move, the page follows it. */
const LIVE_MS = 2000;

/**
 * A workflow's executions: counts by status (one GET per status, `total` of a one-row page), the
 * table filtered by status and searched by the contact's email, each row with the contact's email,
 * the current step's title and, while waiting, when it resumes or what it waits for; an
 * execution's timeline saying what each step did in words (its raw output one click away), cancel
 * one or all, and a link to the execution in the Temporal Web UI (`GET /config` → temporal.uiUrl).
 */
export default function WorkflowExecutions() {
  const { projectId } = useCurrentProject();
  const { workflowId = '' } = useParams();
  const qc = useQueryClient();
  const [status, setStatus] = useState<string>('all');
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const [searched] = useDebouncedValue(search.trim(), 300);
  const [openId, setOpenId] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const workflow = useQuery({
    queryKey: ['workflow', projectId, workflowId],
    queryFn: () => unwrap(api.GET('/workflows/{id}', { params: { path: { id: workflowId } } })),
  });
  const counts = useQueries({
    queries: EXECUTION_STATUSES.map((s) => ({
      queryKey: ['executions', projectId, workflowId, 'count', s],
      refetchInterval: LIVE_MS,
      queryFn: () =>
        unwrap(api.GET('/workflows/{id}/executions', { params: { path: { id: workflowId }, query: { status: s, page: 1, pageSize: 1 } } })),
    })),
  });
  const list = useQuery({
    queryKey: ['executions', projectId, workflowId, 'list', status, page, searched],
    placeholderData: keepPreviousData,
    refetchInterval: LIVE_MS,
    queryFn: () =>
      unwrap(
        api.GET('/workflows/{id}/executions', {
          params: {
            path: { id: workflowId },
            query: {
              page,
              pageSize: PAGE_SIZE,
              status: status === 'all' ? undefined : (status as (typeof EXECUTION_STATUSES)[number]),
              search: searched || undefined,
            },
          },
        }),
      ),
  });
  const refresh = () => qc.invalidateQueries({ queryKey: ['executions', projectId, workflowId] });
  const cancelAll = useMutation({
    meta: { success: 'Runs cancelled' },
    mutationFn: () => unwrap(api.POST('/workflows/{id}/executions/cancel-all', { params: { path: { id: workflowId } } })),
    onSuccess: () => {
      setConfirming(false);
      void refresh();
    },
  });

  if (workflow.isPending) return <Loading />;
  if (workflow.error) return <ErrorState error={workflow.error} />;
  const countOf = (s: string) => counts[EXECUTION_STATUSES.indexOf(s as (typeof EXECUTION_STATUSES)[number])]?.data?.total;
  const total = EXECUTION_STATUSES.reduce((n, s) => n + (countOf(s) ?? 0), 0);
  const active = (countOf('RUNNING') ?? 0) + (countOf('WAITING') ?? 0);

  return (
    <Stack>
      <div>
        <Anchor component={Link} to={`/p/${projectId}/workflows/${workflowId}`} size="sm">
          ← {workflow.data.name}
        </Anchor>
        <Group justify="space-between">
          <Title order={1} size="h2">
            Executions
          </Title>
          <Button color="red" variant="light" disabled={active === 0} onClick={() => setConfirming(true)}>
            Cancel all
          </Button>
        </Group>
      </div>
      <SegmentedControl
        aria-label="Status"
        value={status}
        onChange={(v) => {
          setStatus(v);
          setPage(1);
        }}
        data={[{ value: 'all', label: `All (${total})` }, ...EXECUTION_STATUSES.map((s) => ({ value: s, label: `${s.toLowerCase()} (${countOf(s) ?? '…'})` }))]}
        style={{ alignSelf: 'flex-start' }}
      />
      <TextInput
        label="Search"
        placeholder="The contact's email"
        value={search}
        onChange={(ev) => {
          setSearch(ev.currentTarget.value);
          setPage(1);
        }}
        maw={360}
      />
      {list.error ? <ErrorState error={list.error} /> : null}
      <Grid>
        <Grid.Col span={{ base: 12, xl: openId ? 7 : 12 }}>
          {list.isPending ? <Loading /> : null}
          {list.data ? (
            <Paper withBorder>
              {list.data.data.length ? (
                <ScrollArea>
                  <Table aria-label="Executions" striped highlightOnHover miw={600}>
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th>Contact</Table.Th>
                        <Table.Th>Status</Table.Th>
                        <Table.Th>Current step</Table.Th>
                        <Table.Th>Started</Table.Th>
                        <Table.Th>Finished</Table.Th>
                        <Table.Th />
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {list.data.data.map((e) => (
                        <Table.Tr key={e.id} data-execution-id={e.id} aria-selected={openId === e.id}>
                          <Table.Td>
                            <Anchor component={Link} to={`/p/${projectId}/contacts/${e.contactId}`} size="sm">
                              {e.contactEmail ?? `${e.contactId.slice(0, 8)}…`}
                            </Anchor>
                          </Table.Td>
                          <Table.Td style={{ whiteSpace: 'nowrap' }}>
                            <Badge color={STATUS_COLORS[e.status]} variant="light" style={{ overflow: 'visible' }}>
                              {e.status}
                            </Badge>
                          </Table.Td>
                          <Table.Td data-current-step>
                            {ACTIVE.has(e.status) && e.currentStep ? (
                              <>
                                <Text size="sm">
                                  {e.currentStep.title}
                                  {e.currentStep.name !== e.currentStep.title ? ` · ${e.currentStep.name}` : ''}
                                </Text>
                                {e.status === 'WAITING' && waitWords(e) ? (
                                  <Text size="xs" c="dimmed" data-wait>
                                    {waitWords(e)}
                                  </Text>
                                ) : null}
                              </>
                            ) : (
                              '—'
                            )}
                          </Table.Td>
                          <Table.Td>{momentWords(e.startedAt)}</Table.Td>
                          <Table.Td>{e.finishedAt ? momentWords(e.finishedAt) : '—'}</Table.Td>
                          <Table.Td>
                            <Button size="xs" variant="subtle" onClick={() => setOpenId(e.id)} aria-label={`Timeline of execution ${e.id}`}>
                              Timeline
                            </Button>
                          </Table.Td>
                        </Table.Tr>
                      ))}
                    </Table.Tbody>
                  </Table>
                </ScrollArea>
              ) : (
                <Empty>
                  {searched
                    ? `No executions of a contact matching “${searched}”.`
                    : status === 'all'
                      ? 'No executions yet: they start when the trigger event is tracked for a contact while the workflow is enabled.'
                      : `No ${status.toLowerCase()} executions.`}
                </Empty>
              )}
              {list.data.totalPages > 1 ? (
                <Group justify="center" p="sm">
                  <Pagination total={list.data.totalPages} value={page} onChange={setPage} aria-label="Pages" />
                </Group>
              ) : null}
            </Paper>
          ) : null}
        </Grid.Col>
        {openId ? (
          <Grid.Col span={{ base: 12, xl: 5 }}>
            <ExecutionTimeline projectId={projectId} workflow={workflow.data} executionId={openId} onClose={() => setOpenId(null)} onCancelled={refresh} />
          </Grid.Col>
        ) : null}
      </Grid>
      <Modal opened={confirming} onClose={() => setConfirming(false)} title="Cancel every active execution?">
        <Stack>
          <Text>
            {active} execution{active === 1 ? '' : 's'} running or waiting stop{active === 1 ? 's' : ''} where {active === 1 ? 'it is' : 'they are'}; steps
            already taken stay done. The workflow stays {workflow.data.enabled ? 'enabled' : 'disabled'}.
          </Text>
          {cancelAll.error ? <ErrorState error={cancelAll.error} /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(false)}>
              Keep them
            </Button>
            <Button color="red" onClick={() => cancelAll.mutate()} loading={cancelAll.isPending}>
              Cancel {active} execution{active === 1 ? '' : 's'}
            </Button>
          </Group>
        </Stack>
      </Modal>
      {cancelAll.data ? (
        <Alert color="gray" role="status">
          Cancelled {cancelAll.data.cancelled} execution{cancelAll.data.cancelled === 1 ? '' : 's'}.
        </Alert>
      ) : null}
    </Stack>
  );
}

function ExecutionTimeline({
  projectId,
  workflow,
  executionId,
  onClose,
  onCancelled,
}: {
  projectId: string;
  workflow: Workflow;
  executionId: string;
  onClose: () => void;
  onCancelled: () => void;
}) {
  const config = useAppConfig();
  const params = { params: { path: { id: workflow.id, executionId } } };
  const detail = useQuery({
    queryKey: ['executions', projectId, workflow.id, 'detail', executionId],
    refetchInterval: (q) => (q.state.data && !ACTIVE.has(q.state.data.status) ? false : LIVE_MS),
    queryFn: () => unwrap(api.GET('/workflows/{id}/executions/{executionId}', params)),
  });
  const cancel = useMutation({ meta: { success: 'Run cancelled' }, mutationFn: () => unwrap(api.DELETE('/workflows/{id}/executions/{executionId}', params)), onSuccess: onCancelled });
  const e = detail.data;
  const temporal = config.data?.temporal;
  const stepName = (id: string) => workflow.steps.find((s) => s.id === id)?.name ?? id;
  const typeTitle = (type: string) => workflow.steps.find((s) => s.type === type)?.title ?? type;
  return (
    <Paper withBorder p="md" component="section" aria-label="Execution timeline">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4">
          Timeline
        </Title>
        <Button size="xs" variant="default" onClick={onClose}>
          Close
        </Button>
      </Group>
      {detail.isPending ? <Loading /> : null}
      {detail.error ? <ErrorState error={detail.error} /> : null}
      {e ? (
        <Stack gap="sm">
          <Group gap="xs">
            <Badge color={STATUS_COLORS[e.status]}>{e.status}</Badge>
            {e.contactEmail ? <Text size="sm">{e.contactEmail}</Text> : null}
            {e.status === 'WAITING' && waitWords(e) ? <Text size="sm">{waitWords(e)}</Text> : null}
          </Group>
          {e.error ? (
            <Alert color="red" title="Failed">
              {e.error}
            </Alert>
          ) : null}
          <Group gap="sm">
            {temporal ? (
              <Anchor href={temporalExecutionUrl(temporal.uiUrl, temporal.namespace, e.id)} target="_blank" rel="noreferrer" size="sm">
                Open in Temporal
              </Anchor>
            ) : null}
            {ACTIVE.has(e.status) ? (
              <Button size="xs" color="red" variant="light" onClick={() => cancel.mutate()} loading={cancel.isPending}>
                Cancel execution
              </Button>
            ) : null}
          </Group>
          {cancel.error ? <ErrorState error={cancel.error} /> : null}
          <Timeline active={e.steps.length - 1} bulletSize={18} lineWidth={2}>
            {e.steps.map((s, i) => (
              <Timeline.Item
                // biome-ignore lint/suspicious/noArrayIndexKey: a step may run more than once (loops); its place in the history is its identity
                key={i}
                color={STATUS_COLORS[s.status]}
                title={
                  <Group gap="xs">
                    <Text fw={600} size="sm">
                      {stepName(s.stepId)}
                    </Text>
                    <Badge size="xs" variant="light" color={STATUS_COLORS[s.status]}>
                      {s.status}
                    </Badge>
                  </Group>
                }
              >
                <Text size="sm" data-story>
                  {stepStory(s)}
                </Text>
                <Text size="xs" c="dimmed">
                  {typeTitle(s.type)} · {momentWords(s.startedAt, { seconds: true })}
                  {s.finishedAt ? ` → ${momentWords(s.finishedAt, { seconds: true })}` : ''}
                </Text>
                {s.output !== null && s.output !== undefined ? <RawOutput name={stepName(s.stepId)} output={s.output} /> : null}
              </Timeline.Item>
            ))}
          </Timeline>
        </Stack>
      ) : null}
    </Paper>
  );
}
