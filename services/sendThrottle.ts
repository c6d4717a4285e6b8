import type { Knex } from 'knex';
import { ApplicationFailure } from '@temporalio/common';
import type { EmailConfig } from '../lib/config';
import type { Transport } from './transport';
import { chunk } from '../lib/arrays';
import { holdSlot, projectSendRate, reserveSendSlots, takeHeldSlot } from '../db/sendThrottle';

/**
 * The per-project send throttle (docs/providers.md "Per-project send throttle"): every delivery of
 * a project, from any worker and any path (a single email, a campaign group), first reserves its
 * slots in Postgres (db/sendThrottle.ts), then waits for them. Waits are short on purpose: a worker
 * has a limited number of activity slots, and a project whose backlog held them all would slow every
 * other project down. A longer wait is handed back to the caller as `retryInMs`, which the
 * activities turn into a Temporal retry with that delay: the server keeps the timer, not a worker.
 */

/** Longest wait a single email spends inside its activity; a later slot is held for its retry. */
export const EMAIL_WAIT_MS = 1_000;
/** A held email's retry is due this long before its slot, so Temporal's dispatch never makes it late. */
export const RETRY_LEAD_MS = 500;
/** Longest wait for one campaign group inside a batch: a campaign keeps only a few batches in flight. */
export const GROUP_WAIT_MS = 60_000;

export type Throttled = { go: true; rate: number; waitedMs: number } | { go: false; rate: number; retryInMs: number };

export interface WaitOptions {
  /** Called every few seconds while waiting (an activity's heartbeat). */
  heartbeat?: () => void;
  /** Ends the wait early (the activity was cancelled); the caller checks the signal afterwards. */
  signal?: AbortSignal;
}

export interface SendThrottle {
  /**
   * One email: reserves its slot (or takes the one an earlier attempt held for it) and waits for it
   * when it begins within EMAIL_WAIT_MS; a later slot is held for the email and `retryInMs` says when
   * to come back for it, so a retried email keeps its place in the queue.
   */
  email(input: { emailId: string; projectId: string }, opts?: WaitOptions): Promise<Throttled>;
  /** A group of `count` recipients: reserves and waits when the slots begin within `maxWaitMs`, else reserves nothing. */
  group(input: { projectId: string; count: number; maxWaitMs: number }, opts?: WaitOptions): Promise<Throttled>;
  /**
   * Recipients one provider call may carry: a fifth of a second's worth of the project's rate. A
   * group arrives all at once, so over any stretch arrivals can run ahead of the rate by one group;
   * the rest of the one second's worth the throttle allows is left for the jitter of waking up and
   * of the provider call.
   */
  groupSize(projectId: string): Promise<number>;
  /**
   * `email` or `group` (by whether an `emailId` is given), turned into the activity's answer: the
   * slots came (after their wait), or a `SendThrottled` failure whose retry delay is the wait left,
   * so the Temporal retry carries the wait and not a worker's activity slot. The only place that
   * failure is made.
   */
  waitOrThrow(
    input: { projectId: string; emailId: string } | { projectId: string; count: number; maxWaitMs: number },
    opts?: WaitOptions,
  ): Promise<{ rate: number; waitedMs: number }>;
}

const HEARTBEAT_EVERY_MS = 5_000;

/** Sleeps `ms`, heartbeating, and returns early when `signal` aborts. */
export async function wait(ms: number, opts: WaitOptions): Promise<void> {
  if (ms <= 0 || opts.signal?.aborted) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      clearInterval(beat);
      opts.signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const beat = setInterval(() => opts.heartbeat?.(), HEARTBEAT_EVERY_MS);
    opts.signal?.addEventListener('abort', done);
  });
}

/**
 * The throttle for deliveries through `transport`; null for a transport whose hand-over delivers
 * nothing (`log` only writes the row it was given), which has no provider to protect.
 */
export function sendThrottleFor(knex: Knex, email: Pick<EmailConfig, 'sendRatePerSecond'>, transport: Pick<Transport, 'name'>): SendThrottle | null {
  if (transport.name === 'log') return null;
  const defaultRate = email.sendRatePerSecond;
  const throttle: SendThrottle = {
    async email({ emailId, projectId }, opts = {}) {
      const held = await takeHeldSlot(knex, emailId);
      let waitMs: number;
      let rate = defaultRate;
      if (held !== undefined) waitMs = held;
      else {
        const r = await reserveSendSlots(knex, { projectId, count: 1, defaultRate, maxWaitMs: null });
        // A project deleted meanwhile: nothing to pace, the send finds out the rest.
        if (!r) return { go: true, rate, waitedMs: 0 };
        rate = r.rate;
        waitMs = r.reserved ? r.waitMs : 0;
      }
      if (waitMs > EMAIL_WAIT_MS) {
        await holdSlot(knex, { emailId, projectId, waitMs });
        return { go: false, rate, retryInMs: Math.max(0, waitMs - RETRY_LEAD_MS) };
      }
      await wait(waitMs, opts);
      return { go: true, rate, waitedMs: Math.max(0, waitMs) };
    },

    async group({ projectId, count, maxWaitMs }, opts = {}) {
      const r = await reserveSendSlots(knex, { projectId, count, defaultRate, maxWaitMs: Math.max(0, maxWaitMs) });
      if (!r) return { go: true, rate: defaultRate, waitedMs: 0 };
      if (!r.reserved) return { go: false, rate: r.rate, retryInMs: Math.max(0, r.queuedMs - RETRY_LEAD_MS) };
      await wait(r.waitMs, opts);
      return { go: true, rate: r.rate, waitedMs: Math.max(0, r.waitMs) };
    },

    async waitOrThrow(input, opts = {}) {
      const slot = 'emailId' in input ? await throttle.email(input, opts) : await throttle.group(input, opts);
      if (slot.go) return { rate: slot.rate, waitedMs: slot.waitedMs };
      throw ApplicationFailure.create({
        type: 'SendThrottled',
        message: `project send rate ${slot.rate}/s: the next slot begins in ${Math.round(slot.retryInMs)} ms`,
        nextRetryDelay: Math.max(1, Math.round(slot.retryInMs)),
      });
    },

    async groupSize(projectId) {
      const rate = (await projectSendRate(knex, projectId, defaultRate)) ?? defaultRate;
      return Math.max(1, Math.floor(rate / 5));
    },
  };
  return throttle;
}

/**
 * How long one campaign batch attempt may spend waiting for its groups' slots in all: well inside
 * the batch activity's 10-minute start-to-close, with room for rendering and provider calls. A batch
 * that would wait longer hands its remaining groups back and is retried when the queue has moved.
 */
export const BATCH_WAIT_BUDGET_MS = 4 * 60_000;

/** Splits provider groups further so that none carries more than `size` recipients. */
export function limitGroups<T>(groups: T[][], size: number): T[][] {
  return groups.flatMap((g) => chunk(g, size));
}

/**
 * A campaign's own `sendRatePerMinute`, spread evenly (docs/campaigns.md "Send rate") by the project
 * throttle's rule, GCRA: a group of n takes the slots from max(next free, now), and the next free
 * slot moves n / rate later. A late group (a slow provider call, a busy machine) starts from now, so
 * it never catches up in a burst. The state is the one batch's own: a paced campaign sends one batch
 * at a time, so no shared row is needed. Groups carry a fifth of a second's worth (at least one
 * recipient), like the project throttle's, so over any second arrivals stay within the rate plus one
 * group. Durations are scaled by `timeScale` (WORKFLOW_TIME_SCALE) as the campaign's other waits are.
 */
export interface EvenPace {
  /** Recipients one provider call may carry. */
  groupSize: number;
  /** Reserves the next `count` slots: ms to wait before they begin (0 when they begin now). */
  reserve(count: number): number;
  /** ms until the last reserved slot has passed: what the batch waits before it ends. */
  untilFree(): number;
}

export function evenPace(ratePerMinute: number, timeScale = 1, now: () => number = Date.now): EvenPace {
  const msPerRecipient = (60_000 / ratePerMinute) * timeScale;
  let nextFree = now();
  return {
    groupSize: Math.max(1, Math.floor(ratePerMinute / 60 / 5)),
    reserve(count) {
      const at = now();
      const start = Math.max(nextFree, at);
      nextFree = start + count * msPerRecipient;
      return start - at;
    },
    untilFree: () => Math.max(0, nextFree - now()),
  };
}
