import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import { keys } from '../queryKeys';

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
