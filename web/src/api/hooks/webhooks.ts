import { useQuery } from '@tanstack/react-query';
import { api, type ResponseOf, unwrap } from '../client';
import { keys } from '../queryKeys';

type DeliveryStatus = ResponseOf<'/webhook-endpoints/{id}/deliveries', 'get'>['data'][number]['status'];

/** GET /webhook-endpoints. */
export function useWebhookEndpoints(projectId: string) {
  return useQuery({ queryKey: keys.webhooks.all(projectId), queryFn: () => unwrap(api.GET('/webhook-endpoints')) });
}

/**
 * One page of an endpoint's deliveries, newest first, by cursor; `status` 'all' is no filter. Pending
 * messages change on their own, so the first page is refreshed every 5 s while it is open.
 */
export function useDeliveries(projectId: string, endpointId: string, { status, cursor, limit }: { status: string; cursor: string | undefined; limit: number }) {
  return useQuery({
    queryKey: keys.webhooks.deliveriesPage(projectId, endpointId, status, cursor),
    queryFn: () =>
      unwrap(
        api.GET('/webhook-endpoints/{id}/deliveries', {
          params: { path: { id: endpointId }, query: { limit, cursor, status: status === 'all' ? undefined : (status as DeliveryStatus) } },
        }),
      ),
    refetchInterval: cursor ? false : 5_000,
  });
}
