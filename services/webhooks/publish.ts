import type { Knex } from 'knex';
import type { TemporalGateway } from '../temporal';
import { enqueueEventDeliveries, enqueueSystemDeliveries, SystemMessage } from '../../db/webhookDeliveries';
import { handOffWebhooks } from './handOff';

export interface PublishDeps {
  knex: Knex;
  temporal: TemporalGateway;
  log: { warn: (obj: object, msg: string) => void };
}

/**
 * Queues recorded events for the endpoints that subscribe to them (one statement per batch) and
 * wakes those endpoints' delivery workflows. Called from event routing, which every event passes.
 */
export async function publishEvents(deps: PublishDeps, eventIds: string[]): Promise<void> {
  await handOffWebhooks(deps, await enqueueEventDeliveries(deps.knex, eventIds));
}

/** A message with no event row (campaign.sent, campaign.cancelled, webhook.*). */
export async function publishSystemMessage(deps: PublishDeps, message: SystemMessage): Promise<string[]> {
  const { endpoints, deliveryIds } = await enqueueSystemDeliveries(deps.knex, message);
  await handOffWebhooks(deps, endpoints);
  return deliveryIds;
}
