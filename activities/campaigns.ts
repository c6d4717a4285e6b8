import { Context } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import { CampaignRow, CampaignStatus, getCampaign } from '../db/campaigns';
import { activeCampaigns, beginSending, BeginResult, cancelCampaign, finishSending, setSendingPaused } from '../db/campaignTransitions';
import { batchBounds, campaignEmailId, recipientPage, RecipientEmail, RecipientRow } from '../db/campaignEmails';
import { claimPage, dropUnsent, settleCancelled } from '../db/emailStates';
import { handOverActivity, loopHeartbeat } from './handOver';
import type { BatchRecipient } from '../services/transport';
import { offerBatch, UNKNOWN_OUTCOME } from '../services/handOver';
import { MAX_BATCH_RECIPIENTS } from '../services/sendgridBatches';
import { batchRenderer } from '../services/render';
import { htmlToPlainText } from '../services/plainText';
import { abTestPage } from '../db/campaignAbTest';
import { BATCH_WAIT_BUDGET_MS, evenPace, GROUP_WAIT_MS, limitGroups, wait } from '../services/sendThrottle';
import { consentRefusal } from '../db/consent';
import { start } from '../services/temporal';
import { campaignSendStart } from '../temporal/workflows/campaignSend/start';
import { publishCampaignEnd } from '../services/webhooks/campaigns';
import { clearDueDeferrals, dueDeferredPage, nextDeferral } from '../db/campaignDeferrals';
import { DEFAULT_TRACKING, NO_TRACKING, resolveTracking } from '../lib/trackingSettings';
import { projectTracking } from '../services/emailTracking';
import { applyDeliveryControls, renderRecipient } from '../services/campaignRecipients';

// ───────────────────────────── the batch ─────────────────────────────

/** Recipients one campaign batch (one page of the audience) holds at most: one SendGrid call's worth. */
const MAX_PAGE = MAX_BATCH_RECIPIENTS;

export interface CampaignBatchInput {
  campaignId: string;
  /** Contact id of the previous batch's last recipient ('' to begin). */
  after: string;
  /** Contact id of this batch's last recipient, from `planCampaignBatches`; absent: the next `batchSize`. */
  until?: string;
  batchSize: number;
  /**
   * A pass over the deferred recipients due by this instant (ISO) instead of the audience: they are
   * not deferred again (db/campaignDeferrals).
   */
  deferredUpTo?: string;
  /**
   * The campaign's `sendRatePerMinute`, set by runs after the workflow's even-pace marker: the batch
   * then spreads its recipients evenly over its share of the minute (services/sendThrottle.ts
   * evenPace) instead of handing them over at once and leaving the wait to the workflow.
   */
  ratePerMinute?: number;
}

export interface CampaignBatchPlanInput {
  campaignId: string;
  after: string;
  batchSize: number;
  /** Batches to plan. */
  count: number;
}

export interface CampaignBatchPlan {
  /** Each planned batch's last contact id; batch i runs after bounds[i - 1] (or `after`) up to bounds[i]. */
  bounds: string[];
  /** Recipients remain after the last bound. */
  more: boolean;
}

export interface CampaignBatchResult {
  /** Last contact id of this page: where the next batch starts. */
  cursor: string;
  /** No recipient after this page. */
  done: boolean;
  /** Set when the campaign is no longer SENDING (cancelled, deleted): no further batch may run. */
  stopped?: CampaignStatus | 'DELETED';
  handedOver: number;
  failed: number;
  /** Recipients on the project's suppression list: written SUPPRESSED, never offered. */
  suppressed?: number;
  /** Recipients set aside by the delivery controls: deferred to a later pass, or capped. */
  deferred?: number;
  capped?: number;
  /** The project's send throttle on this batch: its rate, and how long the batch waited for slots. */
  pacing?: { ratePerSecond: number; waitedMs: number };
}

export function campaignActivities(deps: ActivityDeps) {
  const { knex, config } = deps;
  const { handOver, settleInterrupted, throttle, transport } = deps.runtime.handOver;

  return {
    /** When the earliest deferred recipient of the campaign is due (ISO), and the activity's clock; null when none waits. */
    async nextCampaignDeferral(campaignId: string): Promise<{ dueAt: string; now: number } | null> {
      const due = await nextDeferral(knex, campaignId);
      return due ? { dueAt: new Date(due).toISOString(), now: Date.now() } : null;
    },

    /** After a pass over the deferred recipients due by `upTo`: they are dealt with. */
    async clearCampaignDeferrals(input: { campaignId: string; upTo: string }): Promise<void> {
      await clearDueDeferrals(knex, input.campaignId, new Date(input.upTo));
    },

    /** SCHEDULED/SENDING → SENDING with the audience snapshot and totalRecipients (idempotent). */
    async beginCampaignSend(campaignId: string): Promise<BeginResult> {
      const result = await beginSending(knex, campaignId);
      if (result.error) deps.log.warn({ campaignId, error: result.error }, 'campaign could not start');
      return result;
    },

    /** The bounds of the next batches, so several can run at once (the snapshot does not change). */
    async planCampaignBatches(input: CampaignBatchPlanInput): Promise<CampaignBatchPlan> {
      return batchBounds(knex, input.campaignId, input.after, Math.min(input.batchSize, MAX_PAGE), input.count);
    },

    /**
     * One page of the audience snapshot, recorded, rendered and handed over. Exactly one email per
     * recipient relies on the rows' states (see db/campaignEmails): rows already SENT or FAILED are
     * skipped, QUEUED rows (recorded, never offered) are offered, and SENDING rows left by an
     * interrupted attempt are failed rather than offered twice. Nothing is offered once the
     * campaign is no longer SENDING.
     */
    async sendCampaignBatch(input: CampaignBatchInput): Promise<CampaignBatchResult> {
      const ctx = Context.current();
      const startedAt = Date.now();
      const progress = { after: input.after, stage: 'page' };
      ctx.heartbeat(progress);
      const c: CampaignRow | undefined = await getCampaign(knex, input.campaignId);
      const limit = Math.min(input.batchSize, MAX_PAGE);
      const page = !c
        ? []
        : input.deferredUpTo
          ? await dueDeferredPage(knex, c, new Date(input.deferredUpTo), input.after, limit)
          : await recipientPage(knex, c, input.after, limit, input.until);
      const cursor = page.length ? page[page.length - 1].contact_id : input.after;
      const result: CampaignBatchResult = { cursor, done: page.length < limit, handedOver: 0, failed: 0 };
      if (!c) return { ...result, done: true, stopped: 'DELETED' };
      if (c.status !== 'SENDING') return { ...result, done: true, stopped: c.status };
      if (page.length === 0) return result;
      const contactIds = page.map((r) => r.contact_id);
      const ab = await abTestPage(knex, c, contactIds);

      // An earlier attempt that died while the provider had a group: whether it went out is unknown.
      // A transport whose hand-over is the row itself lost nothing, so the group goes again.
      const interrupted = page.filter((r) => r.email_status === 'SENDING').map((r) => r.contact_id);
      result.failed += await settleInterrupted(
        c.id,
        interrupted.map((contactId) => ({ emailId: campaignEmailId(c.id, contactId), type: c.type })),
      );

      progress.stage = 'render';
      // Outside an A/B test group, recipients wait (unwritten) until the winner is chosen.
      // The consent rule (db/consent.ts), on each contact as it is now.
      const consents = (r: RecipientRow) =>
        !consentRefusal({ type: c.type, topicId: c.topic_id }, { subscribed: r.subscribed, topicSubscribed: r.topic_subscribed });
      const eligible = page.filter((r) => r.email_status === null && r.email !== null && !r.set_aside && consents(r) && !ab.held(r.contact_id));
      const fresh = await applyDeliveryControls(knex, c, eligible, !input.deferredUpTo, result);
      const rendered: RecipientEmail[] = [];
      // Yields between recipients and bounds the batch's render time (services/render.ts batchRenderer);
      // a recipient over a budget is written FAILED by the claim below, so a retry never renders it again.
      const renderer = batchRenderer();
      // The campaign's own choice, else the project's settings for its type, and its tracking domain (read once per batch).
      const project = fresh.length ? await projectTracking(knex, config, c.project_id) : undefined;
      const tracking = fresh.length ? resolveTracking(project?.settings ?? DEFAULT_TRACKING, c.type, c.tracking) : NO_TRACKING;
      const beat = loopHeartbeat(progress);
      for (const r of fresh) {
        beat();
        rendered.push(
          await renderRecipient(
            config,
            c,
            { contact_id: r.contact_id, email: r.email!, data: r.data, variant: ab.variant(r.contact_id) },
            renderer,
            tracking,
            project?.base,
          ),
        );
      }
      // Rows QUEUED by an earlier attempt, and the interrupted ones the release above just put back.
      const queued = [...page.filter((r) => r.email_status === 'QUEUED').map((r) => r.contact_id), ...(transport.reofferInterrupted ? interrupted : [])];
      const claim = await claimPage(knex, c, rendered, queued, transport.name);
      if (!claim.live) {
        await dropUnsent(knex, c.id, contactIds);
        return { ...result, done: true, stopped: (await getCampaign(knex, c.id))?.status ?? 'DELETED' };
      }
      result.failed += claim.unrenderable;
      if (claim.suppressed) {
        result.suppressed = claim.suppressed;
        // Their email.suppressed events, committed with the claim; the maintenance sweep routes them if this start fails.
        await deps.runtime.events.handOff(claim.events, { batch: true, context: { campaignId: c.id, source: 'email.suppressed' } });
      }

      const offered: Array<BatchRecipient & { contactId: string }> = [
        ...rendered
          .filter((e) => claim.written.has(e.id))
          .map((e) => ({ emailId: e.id, contactId: e.contactId, to: { email: e.to }, subject: e.subject, html: e.body, text: e.text, headers: e.headers })),
        ...claim.requeued.map((e) => ({
          emailId: e.id,
          contactId: e.contact_id,
          to: { email: e.to_email },
          subject: e.rendered_subject,
          html: e.rendered_body,
          text: e.rendered_text ?? htmlToPlainText(e.rendered_body),
          headers: e.headers,
        })),
      ].sort((a, b) => (a.contactId < b.contactId ? -1 : 1));
      if (offered.length === 0) return result;
      // Groups of a fifth of a second's worth of the project's rate, each reserved on its own, keep arrivals within the rate.
      const pace = input.ratePerMinute ? evenPace(input.ratePerMinute, config.workflows.timeScale) : null;
      const groupSize = Math.min(throttle ? await throttle.groupSize(c.project_id) : transport.maxBatch, pace?.groupSize ?? transport.maxBatch);
      const groups = limitGroups(transport.splitBatch(offered.map(({ contactId: _, ...r }) => r)), groupSize);
      const from = { email: c.from, name: c.from_name };
      const activity = handOverActivity(progress);
      /** Waits `ms` for the campaign's own rate, heartbeating. */
      const keepPace = async (ms: number) => {
        if (ms > 0) await activity.during(`pace ${input.ratePerMinute}/min`, () => wait(ms, { signal: ctx.cancellationSignal }));
      };
      const handed = await handOver(
        {
          projectId: c.project_id,
          campaignId: c.id,
          typeOf: () => c.type,
          groups,
          // The whole attempt may wait BATCH_WAIT_BUDGET_MS in all, and one group at most GROUP_WAIT_MS.
          maxWaitMs: () => Math.min(GROUP_WAIT_MS, BATCH_WAIT_BUDGET_MS - (Date.now() - startedAt)),
          // The campaign's own rate first (its groups were claimed with the page).
          beforeGroup: pace ? (group) => keepPace(pace.reserve(group.length)) : undefined,
          claim: async (group) => group,
          offer: (group) => offerBatch(transport, { projectId: c.project_id, campaignId: c.id, from, replyTo: c.reply_to, recipients: group }),
          // The group's email.sent events, committed with it, go to routing as one batch; the maintenance sweep routes them if this start fails.
          routeSent: (events) => deps.runtime.events.handOff(events, { batch: true, context: { campaignId: c.id, source: 'email.sent' } }),
          onCancelled: async () => {
            if ((await getCampaign(knex, c.id))?.status !== 'SENDING') await dropUnsent(knex, c.id, contactIds);
          },
        },
        activity,
      );
      result.handedOver += handed.sent;
      result.failed += handed.failed;
      if (handed.pacing) result.pacing = handed.pacing;
      // The batch takes its whole share of time, so the next batch's first group does not follow this one's last at once.
      if (pace) await keepPace(pace.untilFree());
      return result;
    },

    /** SENDING ⇄ PAUSED, when the workflow accepted a pause or resume (idempotent). */
    async setCampaignPaused(input: { campaignId: string; paused: boolean }): Promise<CampaignStatus | null> {
      return setSendingPaused(knex, input.campaignId, input.paused);
    },

    /** SENDING → SENT after the last batch (idempotent). */
    async finishCampaignSend(campaignId: string): Promise<CampaignStatus | null> {
      const status = await finishSending(knex, campaignId);
      if (status === 'SENT') await publishCampaignEnd(deps, campaignId, 'campaign.sent');
      return status;
    },

    /** The workflow was cancelled (API cancel already did this; the Temporal UI's cancel does not). */
    async markCampaignCancelled(input: { campaignId: string; projectId: string }): Promise<void> {
      await cancelCampaign(knex, input.projectId, input.campaignId);
      // No batch comes back for rows an attempt left behind (cancelled in its retry wait, or dead).
      await settleCancelled(knex, input.campaignId, UNKNOWN_OUTCOME, transport.reofferInterrupted);
      await publishCampaignEnd(deps, input.campaignId, 'campaign.cancelled');
    },

    /**
     * For the maintenance sweep: a SCHEDULED or SENDING campaign whose workflow never started (the
     * API died between its commit and the start) or failed is started again. Running ones are a no-op.
     */
    async resumeCampaigns(): Promise<number> {
      let started = 0;
      for (const c of await activeCampaigns(knex, 500))
        if ((await start(deps.temporal, campaignSendStart, { campaign: c, config: deps.config })).started) started++;
      return started;
    },
  };
}
