import type { ActivityDeps } from './deps';
import { providerEvents } from '../services/providerEvents';

/** Provider-event work Temporal runs (the maintenance sweep's prune); the webhook route calls the service directly. */
export function providerEventActivities(deps: ActivityDeps) {
  return providerEvents(deps);
}
