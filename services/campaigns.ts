import type { Knex } from 'knex';
import type { TemporalGateway } from './temporal';
import type { Config } from '../lib/config';
import { senderCheckWaived } from '../lib/config';
import type { Logger } from '../lib/logger';
import { uuid } from '../lib/ids';
import { campaignTextSource, type CampaignRow } from '../db/campaigns';
import { identityVariables } from '../lib/contactData';
import { findContactByEmail } from '../db/contactReaders';
import { insertEmail } from '../db/emails';
import { assertVerifiedSender } from './senderCheck';
import { startDelivery } from './deliveries';
import { cancelWorkflow, terminateWorkflow, updateWorkflow } from './temporal';
import { pauseCampaignUpdate, resumeCampaignUpdate } from '../temporal/contract';
import type { CampaignState } from '../temporal/contract';
import { campaignWorkflowId } from '../temporal/workflows/campaignSend/start';

/** Temporal cancellation of the campaign's workflow; one that already ended is fine. */
export async function cancelCampaignWorkflow(gateway: TemporalGateway, campaignId: string): Promise<void> {
  await cancelWorkflow(gateway, campaignWorkflowId(campaignId));
}

/**
 * An unscheduled campaign's sleeping workflow: terminated rather than cancelled, so that sending the
 * draft again may start a new run under the same id (a run that ended normally would refuse it).
 * Nothing was handed over yet (the row's guard made sure), so there is nothing to settle.
 */
export async function endUnscheduledCampaignWorkflow(gateway: TemporalGateway, campaignId: string): Promise<void> {
  await terminateWorkflow(gateway, campaignWorkflowId(campaignId), 'campaign unscheduled: back to draft');
}

/**
 * Pause (or resume) through the campaign's workflow: answers once the workflow accepted it and
 * wrote the campaign row, or with the reason it refused (its validator judges its own state).
 */
export async function setCampaignPaused(
  gateway: TemporalGateway,
  campaignId: string,
  paused: boolean,
): Promise<{ result: CampaignState } | { refused: string }> {
  return updateWorkflow(gateway, campaignWorkflowId(campaignId), paused ? pauseCampaignUpdate : resumeCampaignUpdate);
}

/**
 * One test email of campaign `c` to `address` (POST /campaigns/:id/test): subject prefixed
 * "[Test] ", the campaign's tracking and topic links, delivered like any single email; the
 * campaign's counters do not move. An address that is a contact renders with that contact's
 * fields and links; any other renders without. Throws the sender check's 403 when the sender
 * domain is not verified.
 */
export async function sendCampaignTest(
  deps: { knex: Knex; temporal: TemporalGateway; log: Logger; config: Config },
  c: CampaignRow,
  address: string,
): Promise<{ emailId: string; to: string }> {
  const { knex } = deps;
  await assertVerifiedSender(knex, c.project_id, c.from, senderCheckWaived(deps.config));
  const contact = await findContactByEmail(knex, c.project_id, address);
  const to = contact?.email ?? address;
  const emailId = uuid();
  await insertEmail(knex, {
    id: emailId,
    projectId: c.project_id,
    contactId: contact?.id ?? null,
    type: c.type,
    to: { email: to },
    from: { email: c.from, name: c.from_name },
    replyTo: c.reply_to,
    subject: `[Test] ${c.subject}`,
    body: c.body,
    text: campaignTextSource(c),
    variables: contact ? { ...contact.data, ...identityVariables(contact) } : { email: to, svc_email: to },
    // A test shows the links as the campaign will send them.
    track: c.tracking ?? undefined,
    // A test of a topic campaign carries the topic's links, as the real send will.
    topicId: c.topic_id ?? null,
  });
  // The row is committed: if Temporal cannot take it now, the maintenance sweep starts it.
  await startDelivery(deps.temporal, {
    id: emailId,
    projectId: c.project_id,
    contactId: contact?.id ?? null,
    template: c.name,
    source: `test of campaign ${c.id}`,
  }).catch((err) => deps.log.warn({ err, emailId }, 'test email: delivery start failed; the maintenance sweep will start it'));
  return { emailId, to };
}
