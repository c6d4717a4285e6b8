import { Alert, Anchor, Badge, Button, Grid, Group, Modal, Pagination, SegmentedControl, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { keys } from '../api/queryKeys';
import { useExecutionCounts, useExecutions, useWorkflow } from '../api/hooks/workflows';
import { useCurrentProject } from '../api/project';
import { ACTIVE_STATUSES, EXECUTION_STATUSES, STATUS_COLORS } from '../api/workflows';
import { ErrorState, Loading } from '../components/States';
import { ListTable } from '../components/ListPage';
import { statusWords, waitWords } from '../components/workflow/stepStory';
import { useStepWords } from '../components/workflow/useStepWords';
import { useTranslation } from 'react-i18next';
import { momentWords } from '../api/dates';
import { ExecutionTimeline } from '../components/workflow/ExecutionTimeline';

const PAGE_SIZE = 25;
/**
 * A workflow's executions: counts by status (one GET per status, `total` of a one-row page), the
 * table filtered by status and searched by the contact's email, each row with the contact's email,
 * the current step's title and, while waiting, when it resumes or what it waits for; an
 * execution's timeline saying what each step did in words (its raw output one click away), cancel
 * one or all, and a link to the execution in the Temporal Web UI (`GET /config` → temporal.uiUrl).
 */
export default function WorkflowExecutions() {
  const { t } = useTranslation(['workflows', 'common']);
  const words = useStepWords();
  const { projectId } = useCurrentProject();
  const { workflowId = '' } = useParams();
  const qc = useQueryClient();
  const [status, setStatus] = useState<string>('all');
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const [searched] = useDebouncedValue(search.trim(), 300);
  const [openId, setOpenId] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const workflow = useWorkflow(projectId, workflowId);
  const counts = useExecutionCounts(projectId, workflowId);
  const list = useExecutions(projectId, workflowId, { status, page, pageSize: PAGE_SIZE, search: searched });
  const refresh = () => qc.invalidateQueries({ queryKey: keys.executions.all(projectId, workflowId) });
  const cancelAll = useMutation({
    meta: { success: t('executions.cancelledToast') },
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
            {t('executions.heading')}
          </Title>
          <Button color="red" variant="light" disabled={active === 0} onClick={() => setConfirming(true)}>
            {t('executions.cancelAll')}
          </Button>
        </Group>
      </div>
      <SegmentedControl
        aria-label={t('executions.status')}
        value={status}
        onChange={(v) => {
          setStatus(v);
          setPage(1);
        }}
        data={[
          { value: 'all', label: t('executions.all', { n: total }) },
          ...EXECUTION_STATUSES.map((s) => ({ value: s, label: t('executions.filter', { status: statusWords(s), n: countOf(s) ?? '…' }) })),
        ]}
        style={{ alignSelf: 'flex-start' }}
      />
      <TextInput
        label={t('executions.search')}
        placeholder={t('executions.searchPlaceholder')}
        value={search}
        onChange={(ev) => {
          setSearch(ev.currentTarget.value);
          setPage(1);
        }}
        maw={360}
      />
      <Grid>
        <Grid.Col span={{ base: 12, xl: openId ? 7 : 12 }}>
          <ListTable
            query={list}
            label={t('executions.heading')}
            highlightOnHover
            miw={600}
            head={
              <>
                <Table.Th>{t('executions.contact')}</Table.Th>
                <Table.Th>{t('executions.status')}</Table.Th>
                <Table.Th>{t('executions.currentStep')}</Table.Th>
                <Table.Th>{t('executions.started')}</Table.Th>
                <Table.Th>{t('executions.finished')}</Table.Th>
                <Table.Th />
              </>
            }
            row={(e) => (
              <Table.Tr key={e.id} data-execution-id={e.id} aria-selected={openId === e.id}>
                <Table.Td>
                  <Anchor component={Link} to={`/p/${projectId}/contacts/${e.contactId}`} size="sm">
                    {e.contactEmail ?? `${e.contactId.slice(0, 8)}…`}
                  </Anchor>
                </Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>
                  <Badge color={STATUS_COLORS[e.status]} variant="light" style={{ overflow: 'visible' }}>
                    {statusWords(e.status)}
                  </Badge>
                </Table.Td>
                <Table.Td data-current-step>
                  {ACTIVE_STATUSES.has(e.status) && e.currentStep ? (
                    <>
                      <Text size="sm">
                        {words.title(e.currentStep.type, e.currentStep.title)}
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
                  <Button size="xs" variant="subtle" onClick={() => setOpenId(e.id)} aria-label={t('executions.timelineOf', { id: e.id })}>
                    {t('executions.timeline')}
                  </Button>
                </Table.Td>
              </Table.Tr>
            )}
            empty={
              searched
                ? t('executions.noMatch', { search: searched })
                : status === 'all'
                  ? t('executions.empty')
                  : t(`executions.emptyStatus.${status as (typeof EXECUTION_STATUSES)[number]}`)
            }
            footer={(d) =>
              d.totalPages > 1 ? (
                <Group justify="center" p="sm">
                  <Pagination total={d.totalPages} value={page} onChange={setPage} aria-label={t('common:pages')} />
                </Group>
              ) : null
            }
          />
        </Grid.Col>
        {openId ? (
          <Grid.Col span={{ base: 12, xl: 5 }}>
            <ExecutionTimeline projectId={projectId} workflow={workflow.data} executionId={openId} onClose={() => setOpenId(null)} onCancelled={refresh} />
          </Grid.Col>
        ) : null}
      </Grid>
      <Modal opened={confirming} onClose={() => setConfirming(false)} title={t('executions.confirmTitle')}>
        <Stack>
          <Text>
            {active === 1 ? t('executions.confirmOne', { n: active }) : t('executions.confirmMany', { n: active })}{' '}
            {workflow.data.enabled ? t('executions.staysEnabled') : t('executions.staysDisabled')}
          </Text>
          {cancelAll.error ? <ErrorState error={cancelAll.error} /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(false)}>
              {t('executions.keep')}
            </Button>
            <Button color="red" onClick={() => cancelAll.mutate()} loading={cancelAll.isPending}>
              {active === 1 ? t('executions.cancelOne') : t('executions.cancelMany', { n: active })}
            </Button>
          </Group>
        </Stack>
      </Modal>
      {cancelAll.data ? (
        <Alert color="gray" role="status">
          {cancelAll.data.cancelled === 1 ? t('executions.cancelledOne') : t('executions.cancelledMany', { n: cancelAll.data.cancelled })}
        </Alert>
      ) : null}
    </Stack>
  );
}
