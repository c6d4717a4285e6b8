// Every workflow the worker runs; the worker bundles this file.
export * from './domainVerification';
export * from './routeEvent';
export * from './routeEventBatch';
export * from './deliverEmail';
export * from './deliverEmailBatch';
export * from './maintenance';
export * from './retention';
export * from './bulkJob';
export * from './segmentCompute';
// Only the workflow itself: its module's other exports (the interpreter, types) are not workflow types.
export { workflowExecution } from './workflowExecution';
export * from './noop';
export * from './campaignSend';
export * from './webhookDelivery';
export * from './rssCampaignRun';
export * from './scheduledSend';
