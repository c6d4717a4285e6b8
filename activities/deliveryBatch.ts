import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import type { ActivityDeps } from '.';
import { attachmentsOf, EmailRow } from '../db/emails';
import { batchEmails, claimRendered, RenderedEmail } from '../db/deliveryBatches';
import { markFailed, markHandedOver, releaseClaim } from '../db/campaignEmails';
import { BatchResult, Transport, TransportRejected } from '../services/transport';
import { GROUP_WAIT_MS, sendThrottleFor } from '../services/sendThrottle';
import { refusalBounces } from '../services/providerEvents';
import { batchRenderer, RenderError } from '../services/render';
import { forEachLimit } from '../lib/concurrency';
import { chunk } from '../lib/arrays';
import { deliveriesFailed, emailsHandedOver } from '../lib/metrics';
import { heartbeating, UNKNOWN_OUTCOME } from './handOver';
import { outgoingMessage, renderRow } from './outgoing';
import { trackingSettings } from '../db/tracking';
import { routeEvents } from './eventBatch';
import { redactAddresses } from '../lib/redact';

/** Provider calls in flight at once for one batch: each is one message (transactional mail differs per email). */
const SENDS_IN_FLIGHT = 16;

export interface DeliveryBatchResult {
  sent: number;
  failed: number;
  /** Recipients on the project's suppression list: never offered (optional: older results lack it). */
  suppressed?: number;
}

const countByType = (rows: EmailRow[]) => {
  const out = new Map<string, number>();
  for (const r of rows) out.set(r.type, (out.get(r.type) ?? 0) + 1);
  return out;
};

export function deliveryBatchActivities(deps: ActivityDeps, transport: Transport = deps.runtime.transport) {
  const { knex, config } = deps;
  const bounces = refusalBounces(deps, transport);
  const throttle = sendThrottleFor(knex, config.email, transport);

  return {
    /**
     * Delivers the emails of one /v1/send batch (those whose row names `workflowId`), each at most
     * once, like deliverEmail does one: rows are claimed QUEUED → SENDING before their provider call,
     * and a SENDING row an earlier attempt left is failed rather than offered twice. Rows already
     * SENT or FAILED are done. What a retry must finish (a provider refusing for now, an unanswered
     * call) throws after the rest is recorded, so Temporal retries only what is left.
     */
    async deliverBatch(workflowId: string): Promise<DeliveryBatchResult> {
      const ctx = Context.current();
      const progress = { stage: 'read' };
      const rows = await batchEmails(knex, workflowId);
      const result: DeliveryBatchResult = { sent: 0, failed: 0 };
      if (!rows.length) return result;
      const projectId = rows[0].project_id;

      // An earlier attempt died while the provider had these: whether they went out is unknown.
      const interrupted = rows.filter((r) => r.status === 'SENDING');
      if (interrupted.length) {
        const emailIds = interrupted.map((r) => r.id);
        if (transport.reofferInterrupted) await releaseClaim(knex, null, { emailIds });
        else {
          const failed = await markFailed(knex, null, { emailIds }, UNKNOWN_OUTCOME);
          for (const [type, n] of countByType(interrupted)) deliveriesFailed.inc({ transport: transport.name, type, reason: 'interrupted' }, n);
          result.failed += failed;
        }
      }
      const queued = rows.filter((r) => r.status === 'QUEUED' || (transport.reofferInterrupted && r.status === 'SENDING'));
      if (!queued.length) return result;

      progress.stage = 'render';
      const rendered: RenderedEmail[] = [];
      // Yields between emails and bounds the batch's render time (services/render.ts batchRenderer);
      // an email over a budget is written FAILED below, so a retry never renders it again.
      const renderer = batchRenderer();
      const tracking = (await trackingSettings(knex, projectId)) ?? null;
      for (const r of queued) {
        ctx.heartbeat(progress);
        try {
          rendered.push({ id: r.id, ...(await renderRow(config, r, tracking, renderer)) });
        } catch (err) {
          if (!(err instanceof RenderError)) throw err;
          rendered.push({ id: r.id, error: err.message });
        }
      }
      /** Suppressed rows a claim moved: counted, and their `email.suppressed` events routed (the sweep routes them if this fails). */
      const suppressed = async (claim: { suppressed: number; events: Array<{ id: string }> }) => {
        if (!claim.suppressed) return;
        result.suppressed = (result.suppressed ?? 0) + claim.suppressed;
        await routeEvents(
          deps,
          claim.events.map((e) => e.id),
        ).catch((err) => deps.log.warn({ err, workflowId }, 'email.suppressed routing failed; the maintenance sweep will route them'));
      };
      const unrenderable = rendered.filter((r) => 'error' in r);
      if (unrenderable.length) {
        const claim = await claimRendered(knex, workflowId, unrenderable, transport.name);
        result.failed += claim.unrenderable;
        await suppressed(claim);
      }
      const renderable = rendered.filter((r) => !('error' in r));
      if (!renderable.length) return result;

      const attachments = await attachmentsOf(
        knex,
        renderable.map((r) => r.id),
      );
      const outcome: BatchResult = { accepted: [], rejected: [], unknown: [] };
      const claimed: EmailRow[] = [];
      // Groups of a fifth of a second's worth of the project's rate, each reserved on its own, keep
      // arrivals within the rate (as campaign groups do); without a throttle the batch goes as one.
      // Each group is claimed only once its slots came, so a worker lost while waiting leaves its
      // rows QUEUED, not SENDING with an unknown outcome.
      const groups = throttle ? chunk(renderable, await throttle.groupSize(projectId)) : [renderable];
      let stopped: Error | null = null;
      for (let i = 0; i < groups.length; i++) {
        if (throttle) {
          progress.stage = `throttle ${i + 1}/${groups.length}`;
          const slot = await heartbeating(progress, () =>
            throttle.group({ projectId, count: groups[i].length, maxWaitMs: GROUP_WAIT_MS }, { signal: ctx.cancellationSignal }),
          );
          if (!slot.go) {
            stopped = ApplicationFailure.create({
              type: 'SendThrottled',
              message: `project send rate ${slot.rate}/s: next slot in ${Math.round(slot.retryInMs)} ms`,
              nextRetryDelay: Math.max(1, Math.round(slot.retryInMs)),
            });
            break;
          }
        }
        // A cancelled activity (worker shutting down) stops between groups: the rest stay QUEUED for the retry.
        if (ctx.cancellationSignal.aborted) {
          stopped = new CancelledFailure('delivery batch cancelled between provider calls');
          break;
        }
        // The claim checks the suppression list: suppressed rows are not in `group`, never offered.
        const claim = await claimRendered(knex, workflowId, groups[i], transport.name);
        await suppressed(claim);
        const group = claim.claimed;
        claimed.push(...group);
        progress.stage = `hand-over ${i + 1}/${groups.length}`;
        await heartbeating(progress, () =>
          forEachLimit(group, SENDS_IN_FLIGHT, async (row) => {
            try {
              const { messageId } = await transport.send(outgoingMessage(config, row, attachments.get(row.id) ?? []));
              outcome.accepted.push({ emailId: row.id, messageId });
            } catch (err) {
              if (err instanceof TransportRejected) outcome.rejected.push({ emailId: row.id, error: err });
              else outcome.unknown.push({ emailId: row.id, error: err instanceof Error ? err : new Error(String(err)) });
            }
          }),
        );
      }

      progress.stage = 'record';
      const byId = new Map(claimed.map((r) => [r.id, r]));
      const rowsOf = (ids: Array<{ emailId: string }>) => ids.map((x) => byId.get(x.emailId)!);
      if (outcome.accepted.length) {
        const handed = await markHandedOver(knex, null, outcome.accepted);
        for (const [type, n] of countByType(rowsOf(outcome.accepted))) emailsHandedOver.inc({ transport: transport.name, type }, n);
        result.sent += handed.moved;
        // Routed here rather than by a workflow of their own (no Temporal action); a failure leaves
        // the committed events to the maintenance sweep.
        await routeEvents(
          deps,
          handed.events.map((e) => e.id),
        ).catch((err) => deps.log.warn({ err, workflowId }, 'email.sent routing failed; the maintenance sweep will route them'));
      }
      const refused = outcome.rejected.filter((r) => !r.error.retryable);
      if (refused.length) {
        result.failed += await markFailed(
          knex,
          null,
          { emailIds: refused.map((r) => r.emailId) },
          Object.fromEntries(refused.map((r) => [r.emailId, r.error.message])),
        );
        for (const [type, n] of countByType(rowsOf(refused))) deliveriesFailed.inc({ transport: transport.name, type, reason: 'rejected' }, n);
        // A refusal of the recipient (SMTP 5xx) is also a bounce.
        await bounces.record(refused);
      }
      // Refused for now: nothing was handed over, so they go back to QUEUED for the retry.
      const deferred = outcome.rejected.filter((r) => r.error.retryable);
      if (deferred.length) {
        await releaseClaim(knex, null, { emailIds: deferred.map((r) => r.emailId) });
        for (const [type, n] of countByType(rowsOf(deferred))) deliveriesFailed.inc({ transport: transport.name, type, reason: 'unavailable' }, n);
      }
      // No answer for some: they stay SENDING (outcome unknown), and the retry fails them rather than offer them twice.
      if (outcome.unknown.length) throw outcome.unknown[0].error;
      if (deferred.length) throw ApplicationFailure.retryable(redactAddresses(deferred[0].error.message), 'TransportUnavailable');
      if (stopped) throw stopped;
      return result;
    },
  };
}
