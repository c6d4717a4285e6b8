import type { Knex } from 'knex';
import type { Logger } from '../lib/logger';
import { rescheduleEmail, type ScheduledMove } from '../db/emailStates';
import { searchAttributeLists, type TemporalGateway } from './temporal';
import { SCHEDULED_WAKE_SIGNAL, scheduledSendSpec } from '../temporal/workflows/scheduledSend/start';

const MINUTE_MS = 60_000;
/** How far ahead a send may be scheduled (docs/api.md "Scheduled sends"). */
export const MAX_SCHEDULE_AHEAD_MS = 30 * 24 * 60 * 60 * 1000;

/** The minute (its first millisecond, epoch ms) whose workflow hands over an email due at `at`. */
export const minuteOf = (at: Date) => Math.floor(at.getTime() / MINUTE_MS) * MINUTE_MS;

/**
 * The earliest due time this process has announced to each minute's workflow, while it is still
 * ahead. A run that was told about time `a` wakes at or before `a` and then reads every SCHEDULED
 * row of its minute, so an email due at `t ≥ a` committed before then needs no signal of its own:
 * a minute of many emails costs a few signals, not one per email. Only a time earlier than every
 * announced one (or the first) is signalled.
 */
const announced = new Map<string, number>();
/** Margin before an announced time within which it no longer covers a new email (the run may be reading already). */
const COVER_MARGIN_MS = 2000;

function needsWake(projectId: string, minute: number, dueAt: number, now: number): boolean {
  for (const [k, at] of announced) if (at - COVER_MARGIN_MS <= now) announced.delete(k);
  const key = `${projectId}:${minute}`;
  const known = announced.get(key);
  if (known !== undefined && known <= dueAt) return false;
  announced.set(key, dueAt);
  return true;
}

/**
 * Wakes (or starts) the minute workflows of scheduled emails that just committed: one
 * signal-with-start per project and minute, and none where an earlier wake of that minute still
 * covers the email. Callers whose rows are committed log a failure instead of failing: the
 * maintenance sweep wakes minutes whose emails sit overdue.
 */
export async function wakeScheduledMinutes(gateway: TemporalGateway, projectId: string, dueTimes: Date[], now = Date.now()): Promise<number> {
  const earliest = new Map<number, number>();
  for (const at of dueTimes) {
    const m = minuteOf(at);
    earliest.set(m, Math.min(earliest.get(m) ?? Number.POSITIVE_INFINITY, at.getTime()));
  }
  let signalled = 0;
  for (const [minute, dueAt] of earliest) {
    if (!needsWake(projectId, minute, dueAt, now)) continue;
    try {
      await wakeMinute(gateway, projectId, minute);
    } catch (err) {
      announced.delete(`${projectId}:${minute}`);
      throw err;
    }
    signalled++;
  }
  return signalled;
}

/** One minute's workflow woken, started when it is not running (a finished minute's id starts again). */
export async function wakeMinute(gateway: TemporalGateway, projectId: string, minute: number): Promise<void> {
  const s = scheduledSendSpec.build({ projectId, minute });
  await (await gateway.client()).workflow.signalWithStart(scheduledSendSpec.workflowType, {
    taskQueue: gateway.taskQueue,
    workflowId: s.workflowId,
    args: s.args,
    signal: SCHEDULED_WAKE_SIGNAL,
    signalArgs: [],
    searchAttributes: searchAttributeLists(s),
    staticSummary: s.summary,
    staticDetails: s.details,
  });
}

export type { ScheduledMove };

/**
 * Moves a SCHEDULED email to a new time (a past one: due now) and wakes that minute's workflow; the
 * old minute's run finds nothing due for it. 409-worthy when it already left SCHEDULED.
 */
export async function rescheduleScheduledEmail(
  deps: { knex: Knex; temporal: TemporalGateway; log: Logger },
  projectId: string,
  id: string,
  sendAt: Date,
): Promise<ScheduledMove> {
  const due = sendAt.getTime() < Date.now() ? new Date() : sendAt;
  const moved = await rescheduleEmail(deps.knex, projectId, id, due);
  if ('moved' in moved) await wakeCommitted(deps, projectId, [due]);
  return moved;
}

/**
 * Wakes the minute workflows of scheduled emails already committed: a Temporal outage must not fail
 * the request that committed them, and need not, since the maintenance sweep wakes minutes whose
 * emails sit overdue.
 */
export async function wakeCommitted(deps: { temporal: TemporalGateway; log: Logger }, projectId: string, dueTimes: Date[]): Promise<void> {
  try {
    await wakeScheduledMinutes(deps.temporal, projectId, dueTimes);
  } catch (err) {
    deps.log.warn({ err, projectId }, 'waking scheduled sends failed; the maintenance sweep will wake them');
  }
}
