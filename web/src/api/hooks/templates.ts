import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import { keys } from '../queryKeys';
import type { TemplateType } from '../templates';
import { getBrand, getDraft, getVersion, listStarters, listVersions, previewEmail, type PreviewInput, type Starter } from '../emailEditor';

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

/**
 * GET /templates/{id}/draft (the published content when there is no draft), read once per visit and
 * after a restore (invalidating its key): a refetch would replace what is being edited.
 */
export function useTemplateDraft(projectId: string, templateId: string | undefined) {
  return useQuery({
    queryKey: keys.templates.draft(projectId, templateId),
    enabled: !!templateId,
    staleTime: Infinity,
    refetchOnWindowFocus: false,
    gcTime: 0,
    queryFn: () => getDraft(templateId!),
  });
}

/** GET /templates/{id}/usage: the workflow steps that send it (they keep it from being deleted). */
export function useTemplateUsage(projectId: string, templateId: string) {
  return useQuery({
    queryKey: keys.templates.usage(projectId, templateId),
    queryFn: () => unwrap(api.GET('/templates/{id}/usage', { params: { path: { id: templateId } } })),
  });
}

/** GET /templates/{id}/versions, newest first; `enabled` lets a closed drawer wait. */
export function useTemplateVersions(projectId: string, templateId: string, enabled: boolean) {
  return useQuery({ queryKey: keys.templates.versions(projectId, templateId), enabled, queryFn: () => listVersions(templateId) });
}

/** Version `number` of a template rendered by the server (its stored content through POST /templates/preview). */
export function useVersionPreview(projectId: string, templateId: string, number: number) {
  return useQuery({
    queryKey: keys.templates.versionPreview(projectId, templateId, number),
    queryFn: async () => {
      const v = await getVersion(templateId, number);
      return previewEmail(
        v.editor === 'blocks' && v.document
          ? { subject: v.subject, editor: 'blocks', document: v.document }
          : { subject: v.subject, editor: 'html', body: v.body },
      );
    },
  });
}

/** GET /templates/starters: fixed for the server's life, so read once. */
export function useStarters(projectId: string) {
  return useQuery({ queryKey: keys.templates.starters(projectId), staleTime: Infinity, queryFn: () => listStarters() });
}

/** A starter compiled and rendered by the server, for its thumbnail; read once. */
export function useStarterPreview(projectId: string, starter: Starter) {
  return useQuery({
    queryKey: keys.templates.starterPreview(projectId, starter.id),
    staleTime: Infinity,
    queryFn: () => previewEmail({ subject: starter.subject, editor: 'blocks', document: starter.document }),
  });
}

/** GET /brand: the project's logo, colours, font and footer. */
export function useBrand(projectId: string) {
  return useQuery({ queryKey: keys.templates.brand(projectId), queryFn: () => getBrand() });
}

/**
 * The server's compiled and rendered email with its checks (POST /templates/preview), 400 ms after the
 * last change: the template editor's preview pane and its "Checks" panel read the same answer.
 */
export function useEmailPreview(projectId: string, input: PreviewInput, enabled = true) {
  const [debounced] = useDebouncedValue(input, 400);
  return useQuery({
    queryKey: keys.templates.preview(projectId, debounced),
    placeholderData: keepPreviousData,
    enabled: enabled && !!debounced.subject,
    retry: false,
    queryFn: () => previewEmail(debounced),
  });
}

/**
 * A campaign's own content (not a template) rendered without a contact nor data (POST /templates/preview);
 * `content` is already debounced by the caller, which shows whether it is `enabled`.
 */
export function useContentPreview(projectId: string, content: Omit<PreviewInput, 'data'>, enabled: boolean) {
  return useQuery({
    queryKey: keys.templates.emailPreview(projectId, content),
    placeholderData: keepPreviousData,
    enabled,
    retry: false,
    queryFn: () => previewEmail({ ...content, data: {} }),
  });
}
