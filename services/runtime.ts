import type { Knex } from 'knex';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import type { ImageStore } from '../lib/storage';
import type { TemporalGateway } from './temporal';
import type { Transport } from './transport';
import { createTransport } from './transports';
import { createHandOver, type HandOver } from './handOver';
import { createEventHandOff, EventHandOff } from './events';
import { DeliveryBatcher } from './deliveryBatcher';
import { EngagementBatcher } from './engagementBatcher';
import { createVerifier, Verifier } from './verify';
import { createResolver } from './dns';
import { createImageStore } from './imageStore';
import type { SnsCertCache } from './snsMessages';

/**
 * The collaborators a process builds once and hands down: the API's entry and the worker's each
 * call `createRuntime`, and everything below them reaches these through `deps.runtime`, never
 * through a module-level cache. Each holds state worth sharing within the process (a connection
 * pool, a batch being gathered, a DNS cache), which is why there is one of each.
 */
export interface Runtime {
  /** The configured email transport (one SMTP pool per process), built when first asked for. */
  transport: Transport;
  /**
   * The one hand-over of mail to `transport` (services/handOver.ts: its send throttle, its bounce
   * recording), shared by the three delivery activities; built when first asked for, like the transport.
   */
  handOver: HandOver;
  /** Committed events to routing: never throws, logs once, the maintenance sweep covers failures. */
  events: EventHandOff;
  /** /v1/send's batches of deliveries, one `deliverEmailBatch` start per batch. */
  deliveries: DeliveryBatcher;
  /** Opens and clicks heard by the tracking routes, recorded in batches. */
  engagements: EngagementBatcher;
  /** Address verification with its DNS cache (tests swap it to choose the cache's lifetime). */
  verifier: Verifier;
  /** Uploaded images (Postgres, or S3 with one client). */
  images: ImageStore;
  /** SNS signing certificates by URL. */
  snsCerts: SnsCertCache;
  /** Hands off what the batchers hold and closes the transport (at shutdown). */
  close(): Promise<void>;
}

export function createRuntime(deps: { config: Config; knex: Knex; temporal: TemporalGateway; log: Logger }): Runtime {
  const { config, knex, temporal, log } = deps;
  const events = createEventHandOff({ temporal, knex, log });
  const deliveries = new DeliveryBatcher(temporal, (err, batch) =>
    log.warn({ err, workflowId: batch.workflowId, emails: batch.emailIds.length }, 'delivery batch start failed; the maintenance sweep will start it'),
  );
  const engagements = new EngagementBatcher({ knex, events, log });
  // Built on first use: the worker sends, while the API and the inbound server never do, and
  // building it loads the provider's SDK (services/transports.ts).
  let transport: Transport | undefined;
  let handOver: HandOver | undefined;
  let closed: Promise<void> | undefined;
  const runtime: Runtime = {
    get transport() {
      transport ??= createTransport(config, { knex });
      return transport;
    },
    get handOver() {
      handOver ??= createHandOver({ config, knex, temporal, log, runtime: { events } }, runtime.transport);
      return handOver;
    },
    events,
    deliveries,
    engagements,
    verifier: createVerifier({ resolver: createResolver(config) }),
    images: createImageStore(config, knex),
    snsCerts: new Map(),
    close() {
      closed ??= (async () => {
        await deliveries.drain();
        // Opens and clicks hand their events to `events`: drained first, so those go too.
        await engagements.drain();
        await events.drain();
        transport?.close?.();
      })();
      return closed;
    },
  };
  // Whatever is gathered goes to Temporal before the gateway closes.
  temporal.beforeClose(() => runtime.close());
  return runtime;
}
