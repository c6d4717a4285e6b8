import type { Knex } from 'knex';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import type { TemporalGateway } from '../services/temporal';
import type { StepRegistry } from '../temporal/steps';
import type { Runtime } from '../services/runtime';
import { domainActivities } from './domains';
import { emailActivities } from './email';
import { deliveryBatchActivities } from './deliveryBatch';
import { maintenanceActivities } from './maintenance';
import { retentionActivities } from './retention';
import { bulkActivities } from './bulk';
import { segmentActivities } from './segments';
import { campaignActivities } from './campaigns';
import { campaignAbTestActivities } from './campaignAbTest';
import { providerEventActivities } from './providerEvents';
import { workflowActivities } from './workflows';
import { webhookActivities } from './steps/webhook';
import { sendEmailStepActivities } from './steps/sendEmail';
import { conditionStepActivities } from './steps/condition';
import { updateContactStepActivities } from './steps/updateContact';
import { waitUntilStepActivities } from './steps/waitUntil';
import { eventBatchActivities } from './eventBatch';
import { webhookDeliveryActivities } from './webhookDeliveries';

/** What every activity may use; the worker builds it once. */
export interface ActivityDeps {
  config: Config;
  knex: Knex;
  log: Logger;
  /** For activities that start or signal other workflows (always under deterministic ids). */
  temporal: TemporalGateway;
  /** The step registry execution starts parse their graphs with (tests inject their own). */
  steps?: StepRegistry;
  /** The collaborators built once per process (services/runtime.ts): the transport, event hand-off, verifier. */
  runtime: Runtime;
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...domainActivities(deps),
    ...emailActivities(deps),
    ...deliveryBatchActivities(deps),
    ...maintenanceActivities(deps),
    ...retentionActivities(deps),
    ...bulkActivities(deps),
    ...segmentActivities(deps),
    ...campaignActivities(deps),
    ...campaignAbTestActivities(deps),
    ...providerEventActivities(deps),
    ...workflowActivities(deps),
    ...sendEmailStepActivities(deps),
    ...conditionStepActivities(deps),
    ...updateContactStepActivities(deps),
    ...waitUntilStepActivities(deps),
    ...webhookActivities(deps),
    ...eventBatchActivities(deps),
    ...webhookDeliveryActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
