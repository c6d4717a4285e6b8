import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import { keys } from '../queryKeys';
import type { Then } from './then';

/** GET /events/names: the event names seen, for filters and workflow triggers. */
export function useEventNames(projectId: string) {
  return useQuery({ queryKey: keys.events.names(projectId), queryFn: () => unwrap(api.GET('/events/names')) });
}

/** GET /events/names over the last `days` (a string, as the window picker holds it): each name with its count and last sighting. */
export function useEventNamesSince(projectId: string, days: string) {
  return useQuery({
    queryKey: keys.events.namesSince(projectId, days),
    placeholderData: keepPreviousData,
    queryFn: () => unwrap(api.GET('/events/names', { params: { query: { days: Number(days), limit: 500 } } })),
  });
}

/** The ten newest events of one name (GET /events?name=). */
export function useEvents(projectId: string, name: string) {
  return useQuery({
    queryKey: keys.events.list(projectId, name),
    queryFn: () => unwrap(api.GET('/events', { params: { query: { name, limit: 10 } } })),
  });
}

/** What references an event name (GET /events/{eventName}/usage): segments, campaigns, workflows. */
export function useEventUsage(projectId: string, name: string) {
  return useQuery({
    queryKey: keys.events.usage(projectId, name),
    queryFn: () => unwrap(api.GET('/events/{eventName}/usage', { params: { path: { eventName: name } } })),
  });
}

/** DELETE /events/{eventName}: every event of a name; the names are refreshed while `onSuccess` runs. */
export function useDeleteEvents(projectId: string, then: Then<unknown, string> = {}) {
  const qc = useQueryClient();
  return useMutation({
    meta: then.meta,
    mutationFn: (name: string) => unwrap(api.DELETE('/events/{eventName}', { params: { path: { eventName: name } } })),
    onSuccess: async (data, name) => {
      await then.onSuccess?.(data, name);
      await qc.invalidateQueries({ queryKey: keys.events.names(projectId) });
    },
  });
}
