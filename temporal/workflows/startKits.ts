/**
 * Compile-time only: the start kits (temporal/workflows/<name>/start.ts) name their workflow by its
 * type and take its args from the contract rather than importing it (temporal/startSpec.ts says
 * why). This file holds them to the workflows the worker registers: `tsc` fails here when a kit
 * names no exported workflow of ./index.ts, or starts it with args it does not take. Nothing
 * imports it, so it adds no edge to the import graph's cycles (scripts/importCycles.ts).
 */
import type { ComputeResult } from '../contract';
import type { StartSpec } from '../startSpec';
import type { bulkJobSpec } from './bulkJob/start';
import type { campaignSendStart } from './campaignSend/start';
import type { deliverEmailStart } from './deliverEmail/start';
import type { deliverEmailBatchStart } from './deliverEmailBatch/start';
import type * as workflows from './index';
import type { routeEventSpec } from './routeEvent/start';
import type { routeEventBatchSpec } from './routeEventBatch/start';
import type { scheduledSendSpec } from './scheduledSend/start';
import type { domainVerificationSweep, maintenanceSweep, retentionSweep, rssCampaignRunSpec, segmentRecomputeSweep } from './scheduled/start';
import type { segmentComputeSpec } from './segmentCompute/start';
import type { webhookDeliverySpec } from './webhookDelivery/start';
import type { workflowExecutionSpec } from './workflowExecution/start';

type Workflows = typeof workflows;

/** True when the kit's type is a registered workflow whose parameters accept the kit's args. */
type Fits<Kit> =
  Kit extends StartSpec<infer Type, infer Args, never>
    ? Type extends keyof Workflows
      ? Workflows[Type] extends (...params: infer Params) => Promise<unknown>
        ? Args extends Params
          ? true
          : false
        : false
      : false
    : false;

type Holds<T extends true> = T;

export type StartKitsFit = [
  Holds<Fits<typeof bulkJobSpec>>,
  Holds<Fits<typeof campaignSendStart>>,
  Holds<Fits<typeof deliverEmailStart>>,
  Holds<Fits<typeof deliverEmailBatchStart>>,
  Holds<Fits<typeof routeEventSpec>>,
  Holds<Fits<typeof routeEventBatchSpec>>,
  Holds<Fits<typeof scheduledSendSpec>>,
  Holds<Fits<typeof domainVerificationSweep>>,
  Holds<Fits<typeof maintenanceSweep>>,
  Holds<Fits<typeof retentionSweep>>,
  Holds<Fits<typeof segmentRecomputeSweep>>,
  Holds<Fits<typeof rssCampaignRunSpec>>,
  Holds<Fits<typeof segmentComputeSpec>>,
  Holds<Fits<typeof webhookDeliverySpec>>,
  Holds<Fits<typeof workflowExecutionSpec>>,
  // services/segments.ts reads this run's result as the contract's ComputeResult.
  Holds<ReturnType<Workflows['segmentCompute']> extends Promise<ComputeResult> ? true : false>,
];
