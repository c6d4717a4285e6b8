import type { ActivityDeps } from './deps';
import { attachmentsOf } from '../db/emails';
import { batchEmails } from '../db/deliveryBatches';
import { claimRendered, type RenderedEmail } from '../db/emailStates';
import { offerEach } from '../services/handOver';
import { batchRenderer, RenderError } from '../services/render';
import { chunk } from '../lib/arrays';
import { handOverActivity, loopHeartbeat } from './handOver';
import { outgoingMessage, renderRow } from './outgoing';
import { projectTracking } from '../services/emailTracking';
import type { RoutableEvent } from '../services/events';

export interface DeliveryBatchResult {
  sent: number;
  failed: number;
  /** Recipients on the project's suppression list: never offered (optional: older results lack it). */
  suppressed?: number;
}

/** A rendered row of the batch, as the hand-over groups it. */
type Rendered = RenderedEmail & { emailId: string };

export function deliveryBatchActivities(deps: ActivityDeps) {
  const { knex, config } = deps;
  const { handOver, settleInterrupted, throttle, transport } = deps.runtime.handOver;

  return {
    /**
     * Delivers the emails of one /v1/send batch (those whose row names `workflowId`), each at most
     * once (services/handOver.ts): rows are claimed QUEUED → SENDING group by group just before
     * their provider call, and a SENDING row an earlier attempt left is failed rather than offered
     * twice. Rows already SENT or FAILED are done. What a retry must finish throws after the rest
     * is recorded, so Temporal retries only what is left.
     */
    async deliverBatch(workflowId: string): Promise<DeliveryBatchResult> {
      const progress = { stage: 'read' };
      const rows = await batchEmails(knex, workflowId);
      const result: DeliveryBatchResult = { sent: 0, failed: 0 };
      if (!rows.length) return result;
      const projectId = rows[0].project_id;
      const types = new Map(rows.map((r) => [r.id, r.type]));
      const typeOf = (id: string) => types.get(id) ?? 'TRANSACTIONAL';

      const interrupted = rows.filter((r) => r.status === 'SENDING');
      result.failed += await settleInterrupted(
        null,
        interrupted.map((r) => ({ emailId: r.id, type: r.type })),
      );
      const queued = rows.filter((r) => r.status === 'QUEUED' || (transport.reofferInterrupted && r.status === 'SENDING'));
      if (!queued.length) return result;

      progress.stage = 'render';
      const rendered: Rendered[] = [];
      // Yields between emails and bounds the batch's render time (services/render.ts batchRenderer);
      // an email over a budget is written FAILED below, so a retry never renders it again.
      const renderer = batchRenderer();
      const tracking = (await projectTracking(knex, config, projectId)) ?? null;
      const beat = loopHeartbeat(progress);
      for (const r of queued) {
        beat();
        try {
          rendered.push({ id: r.id, emailId: r.id, ...(await renderRow(config, r, tracking, renderer)) });
        } catch (err) {
          if (!(err instanceof RenderError)) throw err;
          rendered.push({ id: r.id, emailId: r.id, error: err.message });
        }
      }
      /** Claims rows (the claim checks the suppression list: suppressed rows are never offered), counting what it set aside. */
      const claim = async (group: Rendered[]) => {
        const claimed = await claimRendered(knex, workflowId, group, transport.name);
        result.failed += claimed.unrenderable;
        if (claimed.suppressed) {
          result.suppressed = (result.suppressed ?? 0) + claimed.suppressed;
          await routeCommitted(claimed.events, 'email.suppressed');
        }
        return claimed.claimed.map((row) => ({ ...row, emailId: row.id }));
      };
      // The events a claim or an outcome committed, to routing as one batch (as a campaign's); the
      // maintenance sweep routes them if the start fails.
      const routeCommitted = (events: RoutableEvent[], source: string) => deps.runtime.events.handOff(events, { batch: true, context: { workflowId, source } });

      const unrenderable = rendered.filter((r) => 'error' in r);
      if (unrenderable.length) await claim(unrenderable);
      const renderable = rendered.filter((r) => !('error' in r));
      if (!renderable.length) return result;

      const attachments = await attachmentsOf(
        knex,
        renderable.map((r) => r.id),
      );
      // Groups of a fifth of a second's worth of the project's rate, each reserved on its own, keep
      // arrivals within the rate (as campaign groups do); without a throttle the batch goes as one.
      const groups = throttle ? chunk(renderable, await throttle.groupSize(projectId)) : [renderable];
      const handed = await handOver(
        {
          projectId,
          campaignId: null,
          typeOf,
          groups,
          claim,
          offer: (claimed) =>
            offerEach(
              transport,
              claimed.map((row) => outgoingMessage(config, row, attachments.get(row.id) ?? [])),
            ),
          routeSent: (events) => routeCommitted(events, 'email.sent'),
        },
        handOverActivity(progress),
      );
      result.sent += handed.sent;
      result.failed += handed.failed;
      return result;
    },
  };
}
