import type { ActivityDeps } from './deps';
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
import { rssCampaignActivities } from './rssCampaigns';
import { scheduledSendActivities } from './scheduledSends';

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
    ...rssCampaignActivities(deps),
    ...scheduledSendActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
