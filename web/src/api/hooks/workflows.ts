import { keepPreviousData, useQueries, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import { keys } from '../queryKeys';
import { ACTIVE_STATUSES, EXECUTION_STATUSES, LIVE_MS } from '../workflows';

type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

/** One page of GET /workflows. */
export function useWorkflows(projectId: string, { search, page, pageSize }: { search: string; page: number; pageSize: number }) {
  return useQuery({
    queryKey: keys.workflows.list(projectId, page, search),
    placeholderData: keepPreviousData,
    queryFn: () => unwrap(api.GET('/workflows', { params: { query: { page, pageSize, search: search || undefined } } })),
  });
}

/** GET /workflows/{id}. */
export function useWorkflow(projectId: string, workflowId: string) {
  return useQuery({
    queryKey: keys.workflows.one(projectId, workflowId),
    queryFn: () => unwrap(api.GET('/workflows/{id}', { params: { path: { id: workflowId } } })),
  });
}

/** GET /workflows/step-types: the registry's types, their schemas and words; they change with a deploy only. */
export function useWorkflowStepTypes(projectId: string) {
  return useQuery({ queryKey: keys.workflows.stepTypes(projectId), queryFn: () => unwrap(api.GET('/workflows/step-types')), staleTime: 60_000 });
}

/** GET /workflows/{id}/stats: the canvas's numbers, kept fresh every 5 s (counters: a few rows, whatever the number of executions). */
export function useWorkflowStats(projectId: string, workflowId: string) {
  return useQuery({
    queryKey: keys.workflows.stats(projectId, workflowId),
    queryFn: () => unwrap(api.GET('/workflows/{id}/stats', { params: { path: { id: workflowId } } })),
    refetchInterval: 5_000,
  });
}

/** GET /workflows/starters: the flows a workflow can start from. */
export function useWorkflowStarters(projectId: string) {
  return useQuery({ queryKey: keys.workflows.starters(projectId), queryFn: () => unwrap(api.GET('/workflows/starters')), staleTime: 300_000 });
}

/**
 * GET /workflows/{id}/versions. The key sits under the workflow's, so any change to it (an edit,
 * Enable) refreshes the list too; `enabled` is in it because Enable starts a version.
 */
export function useWorkflowVersions(projectId: string, workflowId: string, enabled: boolean) {
  return useQuery({
    queryKey: keys.workflows.versions(projectId, workflowId, enabled),
    queryFn: () => unwrap(api.GET('/workflows/{id}/versions', { params: { path: { id: workflowId } } })),
  });
}

/** The choices of a config field's `picker` (topic, segment, field) as select options; an unknown picker has none. */
export function useWorkflowPicker(projectId: string, picker: string) {
  return useQuery({
    queryKey: keys.workflows.picker(picker, projectId),
    queryFn: async (): Promise<{ value: string; label: string }[]> => {
      if (picker === 'topic') return (await unwrap(api.GET('/topics'))).data.map((t) => ({ value: t.id, label: t.name }));
      if (picker === 'segment') return (await unwrap(api.GET('/segments'))).map((g) => ({ value: g.id, label: g.name }));
      if (picker === 'field')
        return (await unwrap(api.GET('/workflows/fields'))).contactFields
          .filter((f) => f.field.startsWith('data.'))
          .map((f) => ({ value: f.field, label: f.field.replace(/^data\./, '') }));
      return [];
    },
  });
}

/** A test run's execution (POST …/test answered its id), asked every second until it ends; waits for the id. */
export function useTestRun(projectId: string, workflowId: string, executionId: string | undefined) {
  return useQuery({
    queryKey: keys.workflows.testRun(projectId, workflowId, executionId),
    enabled: !!executionId,
    queryFn: () => unwrap(api.GET('/workflows/{id}/executions/{executionId}', { params: { path: { id: workflowId, executionId: executionId! } } })),
    refetchInterval: (q) => (q.state.data && !ACTIVE_STATUSES.has(q.state.data.status) ? false : 1000),
  });
}

/** How many executions are in each status: one GET per status (the `total` of a one-row page), in EXECUTION_STATUSES order, followed live. */
export function useExecutionCounts(projectId: string, workflowId: string) {
  return useQueries({
    queries: EXECUTION_STATUSES.map((status) => ({
      queryKey: keys.executions.count(projectId, workflowId, status),
      refetchInterval: LIVE_MS,
      queryFn: () => unwrap(api.GET('/workflows/{id}/executions', { params: { path: { id: workflowId }, query: { status, page: 1, pageSize: 1 } } })),
    })),
  });
}

/** One page of a workflow's executions, followed live; `status` 'all' is no filter, `search` matches the contact's email. */
export function useExecutions(
  projectId: string,
  workflowId: string,
  { status, page, pageSize, search }: { status: string; page: number; pageSize: number; search: string },
) {
  return useQuery({
    queryKey: keys.executions.list(projectId, workflowId, status, page, search),
    placeholderData: keepPreviousData,
    refetchInterval: LIVE_MS,
    queryFn: () =>
      unwrap(
        api.GET('/workflows/{id}/executions', {
          params: {
            path: { id: workflowId },
            query: { page, pageSize, status: status === 'all' ? undefined : (status as ExecutionStatus), search: search || undefined },
          },
        }),
      ),
  });
}

/** One execution with its steps, followed until it ends. */
export function useExecution(projectId: string, workflowId: string, executionId: string) {
  return useQuery({
    queryKey: keys.executions.one(projectId, workflowId, executionId),
    refetchInterval: (q) => (q.state.data && !ACTIVE_STATUSES.has(q.state.data.status) ? false : LIVE_MS),
    queryFn: () => unwrap(api.GET('/workflows/{id}/executions/{executionId}', { params: { path: { id: workflowId, executionId } } })),
  });
}
