/**
 * Temporal actions, counted from the server's own histories: the unit Temporal Cloud bills and
 * rate-limits (docs.temporal.io/cloud/actions), and what issue 20 asks the benches to print per
 * email, per tracked event and per execution. A helper of the benches, not a bench.
 *
 * Which history events count, following Temporal's definition of a billable action:
 *   - starts           WORKFLOW_EXECUTION_STARTED (client start, schedule, a child's own start,
 *                      a retry run), except a continue-as-new run, counted on its own below;
 *   - continuedAsNew   WORKFLOW_EXECUTION_STARTED of a run that continued another: one start. The
 *                      old run's CONTINUED_AS_NEW event is the same action and is not counted again;
 *   - childStarts      START_CHILD_WORKFLOW_EXECUTION_INITIATED in the parent. Temporal bills a
 *                      child twice: this, and the child's own start (counted under starts);
 *   - activities       ACTIVITY_TASK_SCHEDULED, plus every retry (attempt − 1 of ACTIVITY_TASK_STARTED);
 *   - localActivities  MARKER_RECORDED, once per workflow task that recorded any: Temporal counts all
 *                      the markers of one workflow task (local activities, patch markers) as one;
 *   - timers           TIMER_STARTED (also the implicit timer of `condition(fn, timeout)`);
 *   - signals          WORKFLOW_EXECUTION_SIGNALED, in the receiver (sent by a client or a workflow;
 *                      the sender's SIGNAL_EXTERNAL_… event is the same action). The product uses no
 *                      Signal-With-Start, which Temporal would bill once for start and signal;
 *   - updates          WORKFLOW_EXECUTION_UPDATE_ACCEPTED;
 *   - upserts          UPSERT_WORKFLOW_SEARCH_ATTRIBUTES, except one that sets TemporalChangeVersion alone;
 *   - other            WORKFLOW_EXECUTION_OPTIONS_UPDATED, NEXUS_OPERATION_SCHEDULED and _CANCEL_REQUESTED.
 * Not in any history, so not counted: queries, activity heartbeats, rejected updates, resets, the
 * schedule's own two actions per scheduled run (the benches' projects start no scheduled runs).
 */
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { optionalTsToMs } from '@temporalio/common/lib/time';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const T = temporal.api.enums.v1.EventType;

export const ACTION_KINDS = [
  'starts',
  'continuedAsNew',
  'childStarts',
  'activities',
  'localActivities',
  'timers',
  'signals',
  'updates',
  'upserts',
  'other',
] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];
export type ActionCount = Record<ActionKind, number>;

const LABELS: Record<ActionKind, string> = {
  starts: 'starts',
  continuedAsNew: 'continue-as-new runs',
  childStarts: 'child starts',
  activities: 'activities',
  localActivities: 'local-activity tasks',
  timers: 'timers',
  signals: 'signals',
  updates: 'updates',
  upserts: 'search-attribute upserts',
  other: 'other',
};
/** Printed even when zero, because issue 20 names them. */
const ALWAYS: ActionKind[] = ['starts', 'activities', 'timers', 'signals'];

export const noActions = (): ActionCount => Object.fromEntries(ACTION_KINDS.map((k) => [k, 0])) as ActionCount;
export const totalActions = (c: ActionCount) => ACTION_KINDS.reduce((n, k) => n + c[k], 0);
export function addActions(into: ActionCount, more: ActionCount): ActionCount {
  for (const k of ACTION_KINDS) into[k] += more[k];
  return into;
}

/** The actions among some events of one run's history. */
export function actionsInHistory(events: HistoryEvent[]): ActionCount {
  const c = noActions();
  const markerTasks = new Set<string>();
  for (const e of events) {
    switch (e.eventType) {
      case T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED: {
        const a = e.workflowExecutionStartedEventAttributes;
        const continued = a?.continuedExecutionRunId && a.initiator === temporal.api.enums.v1.ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_WORKFLOW;
        c[continued ? 'continuedAsNew' : 'starts']++;
        break;
      }
      case T.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
        c.childStarts++;
        break;
      case T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
        c.activities++;
        break;
      case T.EVENT_TYPE_ACTIVITY_TASK_STARTED:
        c.activities += Math.max(0, (e.activityTaskStartedEventAttributes?.attempt ?? 1) - 1);
        break;
      case T.EVENT_TYPE_MARKER_RECORDED:
        markerTasks.add(String(e.markerRecordedEventAttributes?.workflowTaskCompletedEventId ?? e.eventId));
        break;
      case T.EVENT_TYPE_TIMER_STARTED:
        c.timers++;
        break;
      case T.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
        c.signals++;
        break;
      case T.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
        c.updates++;
        break;
      case T.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES: {
        const keys = Object.keys(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {});
        if (!(keys.length === 1 && keys[0] === 'TemporalChangeVersion')) c.upserts++;
        break;
      }
      case T.EVENT_TYPE_WORKFLOW_EXECUTION_OPTIONS_UPDATED:
      case T.EVENT_TYPE_NEXUS_OPERATION_SCHEDULED:
      case T.EVENT_TYPE_NEXUS_OPERATION_CANCEL_REQUESTED:
        c.other++;
        break;
    }
  }
  c.localActivities = markerTasks.size;
  return c;
}

export interface ActionTally {
  /** Actions of every listed run. */
  total: ActionCount;
  /** The same, per group (`groupBy`), e.g. per workflow type. */
  groups: Record<string, ActionCount>;
  /** Runs with events counted (after `since`), in all and per group, and those events per group. */
  executions: number;
  runs: Record<string, number>;
  historyEvents: Record<string, number>;
}

/**
 * Lists the runs that match `query` (a visibility query: e.g. the bench project's `ProjectId`,
 * which every product workflow carries, so a floor's or a warm-up project's runs stay out) and
 * counts the actions in their histories, of events at or after `since` when given (a warm-up in
 * the same project ran before it). Histories are read a few at a time.
 */
export async function countActions(
  client: Client,
  query: string,
  opts: { since?: Date; groupBy?: (w: WorkflowExecutionInfo) => string } = {},
): Promise<ActionTally> {
  const runs: WorkflowExecutionInfo[] = [];
  for await (const w of client.workflow.list({ query })) runs.push(w);
  const tally: ActionTally = { total: noActions(), groups: {}, executions: 0, runs: {}, historyEvents: {} };
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < runs.length) {
        const w = runs[next++];
        const history = await client.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
        const events = (history.events ?? []).filter((e) => opts.since === undefined || (optionalTsToMs(e.eventTime) ?? 0) >= opts.since.getTime());
        if (!events.length) continue; // ran entirely before `since`
        const c = actionsInHistory(events);
        const group = opts.groupBy?.(w) ?? 'all';
        addActions(tally.total, c);
        addActions((tally.groups[group] ??= noActions()), c);
        tally.executions++;
        tally.runs[group] = (tally.runs[group] ?? 0) + 1;
        tally.historyEvents[group] = (tally.historyEvents[group] ?? 0) + events.length;
      }
    }),
  );
  return tally;
}

/** Waits until no run matching `query` is open, so every action the units caused is in a history. */
export async function untilClosed(client: Client, query: string, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { count } = await client.workflow.count(`(${query}) AND ExecutionStatus = 'Running'`);
    if (count === 0) return;
    if (Date.now() > deadline) throw new Error(`${count} runs still open for ${query}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const num = (n: number) => String(Number(n.toPrecision(3)));

/**
 * "X per <unit> (starts a, activities b, timers c, signals d, …) — target ≤ T: met", each kind per
 * unit, then the absolute counts.
 */
export function formatActions(c: ActionCount, units: number, unit: string, target?: number): string {
  const per = (n: number) => num(n / units);
  const kinds = [...ALWAYS, ...ACTION_KINDS.filter((k) => !ALWAYS.includes(k) && c[k] > 0)].map((k) => `${LABELS[k]} ${per(c[k])}`);
  const total = totalActions(c);
  const goal = target === undefined ? 'no target in issue 20' : `target ≤ ${target}: ${total / units <= target ? 'met' : 'not met'}`;
  return `${per(total)} per ${unit} (${kinds.join(', ')}) — ${goal}  [${total} actions for ${units} ${unit}s]`;
}
