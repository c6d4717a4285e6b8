import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, type ResponseOf, unwrap } from '../client';
import { keys } from '../queryKeys';

type InboundKind = ResponseOf<'/inbound', 'get'>['data'][number]['kind'];

/** One page of GET /inbound, newest first, by cursor; `kind` 'all' is no filter. The previous page stays on screen while the next loads. */
export function useInbound(projectId: string, { kind, cursor, limit }: { kind: string; cursor: string | undefined; limit: number }) {
  return useQuery({
    queryKey: keys.inbound.list(projectId, kind, cursor),
    placeholderData: keepPreviousData,
    queryFn: () => unwrap(api.GET('/inbound', { params: { query: { limit, cursor, kind: kind === 'all' ? undefined : (kind as InboundKind) } } })),
  });
}

/** GET /inbound/{id}: one message with its headers and source; waits for an id. */
export function useInboundMessage(projectId: string, messageId: string | undefined) {
  return useQuery({
    queryKey: keys.inbound.one(projectId, messageId),
    enabled: !!messageId,
    queryFn: () => unwrap(api.GET('/inbound/{id}', { params: { path: { id: messageId! } } })),
  });
}
