/** The contract of the `webhookDelivery` workflow, shared by its starters and the sandbox. */

export interface WebhookDeliveryInput {
  endpointId: string;
}

/** "New messages are queued": wakes an idle or sleeping delivery workflow. */
export const WEBHOOK_WAKE_SIGNAL = 'webhookWake';

/** What one drain round did, and what the workflow should do next. */
export interface WebhookRoundResult {
  delivered: number;
  failed: number;
  /** The endpoint is gone or disabled: the workflow ends. */
  stop?: 'deleted' | 'disabled';
  /** A full batch was taken: more may be due right now. */
  more: boolean;
  /** When the next pending message is due; null when none is pending. */
  nextDueInMs: number | null;
}
