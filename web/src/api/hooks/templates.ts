import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import { keys } from '../queryKeys';
import type { TemplateType } from '../templates';

/** One page of GET /templates, last updated first; `type` 'all' is no filter. */
export function useTemplates(projectId: string, { search, type, page, pageSize }: { search: string; type: string; page: number; pageSize: number }) {
  return useQuery({
    queryKey: keys.templates.list(projectId, search, type, page),
    placeholderData: keepPreviousData,
    queryFn: () =>
      unwrap(
        api.GET('/templates', {
          params: {
            query: {
              page,
              pageSize,
              search: search || undefined,
              type: type === 'all' ? undefined : (type as TemplateType),
              sort: 'updatedAt',
              dir: 'desc',
            },
          },
        }),
      ),
  });
}

/** The 100 last updated templates, for the template pickers (campaign composer, RSS campaign, workflow step). */
export function useTemplatePicker(projectId: string) {
  return useQuery({
    queryKey: keys.templates.picker(projectId),
    queryFn: () => unwrap(api.GET('/templates', { params: { query: { page: 1, pageSize: 100, sort: 'updatedAt', dir: 'desc' } } })),
  });
}

/** GET /templates/{id}; waits for an id. */
export function useTemplate(projectId: string, templateId: string | undefined) {
  return useQuery({
    queryKey: keys.templates.one(projectId, templateId),
    enabled: !!templateId,
    queryFn: () => unwrap(api.GET('/templates/{id}', { params: { path: { id: templateId! } } })),
  });
}
