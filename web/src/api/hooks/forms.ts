import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import { keys } from '../queryKeys';

/** GET /forms: the project's signup forms (not paged: a project has a handful). */
export function useForms(projectId: string) {
  return useQuery({ queryKey: keys.forms.all(projectId), queryFn: () => unwrap(api.GET('/forms')) });
}

/** GET /forms/{id}; waits for an id (the new form's page has none). */
export function useForm(projectId: string, formId: string | undefined) {
  return useQuery({
    queryKey: keys.forms.one(projectId, formId),
    enabled: !!formId,
    queryFn: () => unwrap(api.GET('/forms/{id}', { params: { path: { id: formId! } } })),
  });
}
