/**
 * Deterministic Temporal workflow ids (docs/architecture.md, "Temporal"), in one place: a retried API call or a sweep that
 * starts the same id again starts nothing new. Pure functions, safe inside the workflow sandbox.
 */
export const deliverEmailWorkflowId = (emailId: string) => `email-${emailId}`;
/** A /v1/send batch: its rows carry this id from their commit, so a restart by the sweep reuses it. */
export const deliverEmailBatchWorkflowId = (batchId: string) => `emails-${batchId}`;
export const routeEventWorkflowId = (eventId: string) => `event-${eventId}`;
export const executionWorkflowId = (executionId: string) => `exec-${executionId}`;
export const campaignWorkflowId = (campaignId: string) => `campaign-${campaignId}`;
export const bulkJobWorkflowId = (jobId: string) => `job-${jobId}`;
export const segmentComputeWorkflowId = (segmentId: string, runKey: string) => `segment-${segmentId}-${runKey}`;
export const routeEventBatchWorkflowId = (firstEventId: string) => `events-${firstEventId}`;
export const webhookDeliveryWorkflowId = (endpointId: string) => `webhook-${endpointId}`;
/** One project's scheduled sends of one minute (`minute` in epoch ms): `scheduled-send-<projectId>-<yyyymmddhhmm>` (UTC). */
export const scheduledSendWorkflowId = (projectId: string, minute: number) =>
  `scheduled-send-${projectId}-${new Date(minute).toISOString().slice(0, 16).replace(/[-T:]/g, '')}`;
