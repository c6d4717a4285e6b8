import type { TemporalGateway } from './temporal';
import { start } from './temporal';
import { type DeliveryStart, deliverEmailStart } from '../temporal/workflows/deliverEmail/start';

export type { DeliveryStart } from '../temporal/workflows/deliverEmail/start';

/** Starts delivery of a stored email; the id makes a repeat start a no-op. */
export async function startDelivery(gateway: TemporalGateway, email: DeliveryStart) {
  await start(gateway, deliverEmailStart, email);
}
