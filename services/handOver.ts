import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { type HandedOver, markFailed, markHandedOver, releaseClaim } from '../db/emailStates';
import { reopenForWaits } from '../db/events';
import { forEachLimit } from '../lib/concurrency';
import { deliveriesFailed, emailsHandedOver } from '../lib/metrics';
import { redactAddresses } from '../lib/redact';
import { type ProviderEventDeps, refusalBounces } from './providerEvents';
import { GROUP_WAIT_MS, type SendThrottle, sendThrottleFor } from './sendThrottle';
import { type BatchResult, type OutgoingBatch, type OutgoingMessage, type Transport, TransportRejected } from './transport';

/**
 * The one hand-over of mail to a provider, for the three delivery paths: a single email (a group of
 * one), a /v1/send batch and a campaign batch (activities/{email,deliveryBatch,campaigns}.ts are its
 * adapters: they read and render their rows, then give the groups here). A process builds it once,
 * over its transport (services/runtime.ts `handOver`). The rules live only here:
 *
 *   - each group waits for the project's send throttle first, or the attempt ends with
 *     `SendThrottled` and the rows not offered go back to QUEUED;
 *   - a cancelled activity stops between groups, its rows not offered back to QUEUED;
 *   - a group is claimed QUEUED → SENDING before its provider call (by the adapter's `claim`, or
 *     before the hand-over for campaign pages), so a worker lost while waiting leaves rows QUEUED;
 *   - each outcome is recorded as a set: accepted → SENT (with `email.sent`), refused for good →
 *     FAILED (an SMTP 5xx is also a bounce), refused for now → back to QUEUED for the retry, no
 *     answer → left SENDING (outcome unknown), and the retry fails them rather than offer twice;
 *   - a row an interrupted attempt left SENDING is failed with UNKNOWN_OUTCOME (`settleInterrupted`).
 */

/** Why an email left SENDING by an attempt that died is failed rather than offered again. */
export const UNKNOWN_OUTCOME = 'delivery outcome unknown after an interrupted hand-over; not retried to avoid a duplicate';

/** Provider calls in flight at once for a group offered message by message (transactional mail differs per email). */
const SENDS_IN_FLIGHT = 16;

export type HandOverDeps = ProviderEventDeps;

/** How the activity running a hand-over is told about it: its cancellation, and a progress stage it heartbeats. */
export interface HandOverActivity {
  signal: AbortSignal;
  /** Runs `work` under `stage` (the activity heartbeats it while the work runs). */
  during<T>(stage: string, work: () => Promise<T>): Promise<T>;
}

/** One email in a group: every group item names its email row. */
export interface GroupItem {
  emailId: string;
}

export interface HandOverPlan<G extends GroupItem, O extends GroupItem> {
  /** The project whose send throttle paces the groups; null for system mail, which is not paced. */
  projectId: string | null;
  /** The rows' scope for the state statements: their campaign (its counters move), or null. */
  campaignId: string | null;
  /** The email type, for the metrics. */
  typeOf(emailId: string): string;
  groups: G[][];
  /** Keeps a single email's throttle slot across retries (services/sendThrottle `email`). */
  oneEmail?: boolean;
  /** The longest this attempt may wait for a group's slots now (default GROUP_WAIT_MS; a single email's wait is its own). */
  maxWaitMs?(): number;
  /** Called before a group's throttle wait (a campaign's own send rate). */
  beforeGroup?(group: G[]): Promise<void>;
  /**
   * Claims the group's rows (QUEUED → SENDING, or SUPPRESSED) just before their provider call, and
   * says what to offer; rows claimed before the hand-over (a campaign page) pass through.
   */
  claim(group: G[]): Promise<O[]>;
  /** Offers what was claimed to the transport: `offerEach` or `offerBatch`. */
  offer(claimed: O[]): Promise<BatchResult>;
  /** The committed `email.sent` events of accepted rows, to routing (never throws). */
  routeSent(events: HandedOver['events']): Promise<void>;
  /** After a cancellation stopped the hand-over, before it throws (a campaign drops its unsent rows). */
  onCancelled?(): Promise<void>;
}

export interface HandOverResult {
  /** Rows moved SENDING → SENT. */
  sent: number;
  /** Rows moved SENDING → FAILED (refused for good). */
  failed: number;
  /** What the provider accepted, with its message ids. */
  accepted: BatchResult['accepted'];
  /** What the provider refused for good. */
  refused: BatchResult['rejected'];
  /** The project throttle's rate and the time spent waiting for its slots, when it applied. */
  pacing?: { ratePerSecond: number; waitedMs: number };
}

/** A provider error as an outcome: refused (the provider answered) or unknown (no answer). */
const outcomeOf = (emailIds: string[], err: unknown): BatchResult =>
  err instanceof TransportRejected
    ? { accepted: [], rejected: emailIds.map((emailId) => ({ emailId, error: err })), unknown: [] }
    : { accepted: [], rejected: [], unknown: emailIds.map((emailId) => ({ emailId, error: err instanceof Error ? err : new Error(String(err)) })) };

/** Each message in its own provider call (transactional mail differs per email), a few in flight at once. */
export async function offerEach(transport: Transport, messages: OutgoingMessage[]): Promise<BatchResult> {
  const result: BatchResult = { accepted: [], rejected: [], unknown: [] };
  await forEachLimit(messages, SENDS_IN_FLIGHT, async (m) => {
    try {
      const { messageId } = await transport.send(m);
      result.accepted.push({ emailId: m.emailId, messageId });
    } catch (err) {
      const one = outcomeOf([m.emailId], err);
      result.rejected.push(...one.rejected);
      result.unknown.push(...one.unknown);
    }
  });
  return result;
}

/** A campaign group in one `sendBatch` call; a failure of the whole call counts for each recipient. */
export async function offerBatch(transport: Transport, batch: OutgoingBatch): Promise<BatchResult> {
  return transport.sendBatch(batch).catch((err) =>
    outcomeOf(
      batch.recipients.map((r) => r.emailId),
      err,
    ),
  );
}

export function createHandOver(deps: HandOverDeps, transport: Transport) {
  const { knex } = deps;
  const bounces = refusalBounces(deps, transport);
  const throttle: SendThrottle | null = sendThrottleFor(knex, deps.config.email, transport);

  /** Counts emails by type into a metric (a /v1/send batch mixes types). */
  const countByType = (ids: string[], typeOf: (emailId: string) => string, inc: (type: string, n: number) => void) => {
    const byType = new Map<string, number>();
    for (const id of ids) byType.set(typeOf(id), (byType.get(typeOf(id)) ?? 0) + 1);
    for (const [type, n] of byType) inc(type, n);
  };

  /**
   * Rows an earlier attempt left SENDING: whether the provider took them is unknown, so they are
   * failed with UNKNOWN_OUTCOME; a transport whose hand-over is the row itself (`log`) lost
   * nothing, so they go back to QUEUED to be offered again. Returns how many were failed.
   */
  async function settleInterrupted(campaignId: string | null, rows: Array<{ emailId: string; type: string }>): Promise<number> {
    if (!rows.length) return 0;
    const emailIds = rows.map((r) => r.emailId);
    if (transport.reofferInterrupted) {
      await releaseClaim(knex, campaignId, { emailIds });
      return 0;
    }
    const failed = await markFailed(knex, campaignId, { emailIds }, UNKNOWN_OUTCOME);
    const types = new Map(rows.map((r) => [r.emailId, r.type]));
    countByType(
      failed,
      (id) => types.get(id)!,
      (type, n) => deliveriesFailed.inc({ transport: transport.name, type, reason: 'interrupted' }, n),
    );
    return failed.length;
  }

  /** Records one group's outcome; what a retry must finish (refused for now, no answer) throws after the rest is recorded. */
  async function record(
    plan: Pick<HandOverPlan<GroupItem, GroupItem>, 'campaignId' | 'typeOf' | 'routeSent'>,
    outcome: BatchResult,
    result: HandOverResult,
    later: string[],
  ): Promise<void> {
    const { campaignId, typeOf } = plan;
    try {
      if (outcome.accepted.length) {
        const handed = await markHandedOver(knex, campaignId, outcome.accepted);
        // Counted as the rows turn SENT, before anything else is awaited: whoever sees SENT sees the count.
        countByType(
          outcome.accepted.map((a) => a.emailId),
          typeOf,
          (type, n) => emailsHandedOver.inc({ transport: transport.name, type }, n),
        );
        result.sent += handed.moved;
        result.accepted.push(...outcome.accepted);
        // Written routed because nothing listened; a wait that committed meanwhile reopens its own.
        handed.events.push(...(await reopenForWaits(knex, handed.settled)));
        await plan.routeSent(handed.events);
      }
      const refused = outcome.rejected.filter((r) => !r.error.retryable);
      if (refused.length) {
        const emailIds = refused.map((r) => r.emailId);
        const failed = await markFailed(knex, campaignId, { emailIds }, Object.fromEntries(refused.map((r) => [r.emailId, r.error.message])));
        result.failed += failed.length;
        countByType(emailIds, typeOf, (type, n) => deliveriesFailed.inc({ transport: transport.name, type, reason: 'rejected' }, n));
        result.refused.push(...refused);
        // A refusal of the recipient (SMTP 5xx) is also a bounce.
        await bounces.record(refused);
      }
    } catch (err) {
      // Not recorded: the groups not offered go back to QUEUED; this group's rows stay SENDING (outcome unknown to the retry).
      await releaseClaim(knex, campaignId, { emailIds: later });
      throw err;
    }
    // Refused for now (nothing was handed over): back to QUEUED with the groups not offered, for the retry.
    const deferred = outcome.rejected.filter((r) => r.error.retryable);
    if (deferred.length || outcome.unknown.length) {
      await releaseClaim(knex, campaignId, { emailIds: [...deferred.map((r) => r.emailId), ...later] });
      countByType(
        deferred.map((r) => r.emailId),
        typeOf,
        (type, n) => deliveriesFailed.inc({ transport: transport.name, type, reason: 'unavailable' }, n),
      );
      // No answer for some: they stay SENDING (outcome unknown), and the retry fails them rather than offer them twice.
      if (outcome.unknown.length) throw outcome.unknown[0].error;
      throw ApplicationFailure.retryable(redactAddresses(deferred[0].error.message), 'TransportUnavailable');
    }
  }

  /** Hands the plan's groups over one after another (see the rules above). */
  async function handOver<G extends GroupItem, O extends GroupItem>(plan: HandOverPlan<G, O>, activity: HandOverActivity): Promise<HandOverResult> {
    const result: HandOverResult = { sent: 0, failed: 0, accepted: [], refused: [] };
    const { groups, projectId } = plan;
    const idsFrom = (from: number) => groups.slice(from).flatMap((g) => g.map((r) => r.emailId));
    for (let i = 0; i < groups.length; i++) {
      const group = groups[i];
      const of = `${i + 1}/${groups.length}`;
      await plan.beforeGroup?.(group);
      if (throttle && projectId) {
        const first = group[0];
        const slot = await activity
          .during(`throttle ${of}`, () =>
            throttle.waitOrThrow(
              plan.oneEmail ? { projectId, emailId: first.emailId } : { projectId, count: group.length, maxWaitMs: plan.maxWaitMs?.() ?? GROUP_WAIT_MS },
              {
                signal: activity.signal,
              },
            ),
          )
          .catch(async (err) => {
            // The project's queue is longer than this attempt may wait: what was not offered goes back to QUEUED.
            await releaseClaim(knex, plan.campaignId, { emailIds: idsFrom(i) });
            throw err;
          });
        result.pacing = { ratePerSecond: slot.rate, waitedMs: (result.pacing?.waitedMs ?? 0) + slot.waitedMs };
      }
      // A cancelled activity (worker shutting down, workflow cancelled) stops between groups: the
      // ones not offered go back to QUEUED, so a retry offers them and nothing is lost.
      if (activity.signal.aborted) {
        await releaseClaim(knex, plan.campaignId, { emailIds: idsFrom(i) });
        await plan.onCancelled?.();
        throw new CancelledFailure('hand-over cancelled between provider calls');
      }
      const claimed = await plan.claim(group);
      if (!claimed.length) continue;
      const outcome = await activity.during(`hand-over ${of}`, () => plan.offer(claimed));
      await record(plan, outcome, result, idsFrom(i + 1));
    }
    return result;
  }

  return { handOver, settleInterrupted, throttle, transport };
}

export type HandOver = ReturnType<typeof createHandOver>;
