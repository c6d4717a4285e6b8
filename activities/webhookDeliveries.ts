import { Context } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import type { WebhookRoundResult } from '../temporal/contract';
import { deliverDueRound } from '../services/webhooks/delivery';

export function webhookDeliveryActivities(deps: ActivityDeps) {
  return {
    /** One round of an endpoint's queue (services/webhooks/delivery.ts); heartbeats per message. */
    async deliverWebhookRound(endpointId: string): Promise<WebhookRoundResult> {
      const ctx = Context.current();
      return deliverDueRound(deps, endpointId, { heartbeat: () => ctx.heartbeat(), stopping: () => ctx.cancellationSignal.aborted });
    },
  };
}
