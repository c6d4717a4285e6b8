import {
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  patched,
  proxyLocalActivities,
  rootCause,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { workflowActivities } from '../../../activities/workflows';
import { STEP_TYPES, StepRegistry, findStepType, UNIT_MS } from '../../steps';
import type { StepContext, StepOutcome } from '../../steps';
import { eventSignal, executionStateQuery } from '../../contract';
import type { BoundaryUpdate, EventPayload, ExecutionEnd, ExecutionInput, ExecutionState, GraphSnapshot, ProgressUpdate } from '../../contract';

/**
 * One automation workflow run for one contact (`exec-<executionId>`): walks the graph snapshot it
 * was started with, step by step, dispatching each step to its type in the registry. Postgres is
 * kept in step by local activities (status, current step, context, per-step history).
 */

export type { GraphSnapshot, ExecutionInput, ExecutionEnd, ProgressUpdate } from '../../contract';

/** A loop of steps that never waits would otherwise run forever. */
export const MAX_STEPS_PER_EXECUTION = 1000;
const SEEN_EVENTS_KEPT = 100;

export interface Runtime {
  /** Resolves false when the execution is no longer active in Postgres (cancelled, or deleted with its workflow). */
  progress(update: Omit<ProgressUpdate, 'executionId' | 'context'>, context: Record<string, unknown>): Promise<boolean>;
  stepContext(step: GraphSnapshot['steps'][number], seq: number, context: Record<string, unknown>): StepContext;
  /**
   * Offers a step boundary to be written together with the wait the next step opens with (its type
   * declares `startsWithWait`); the step's `sleep`/`waitForEvent` then carries it. False: write it
   * now with `progress` (a runtime that does not fold, or a history recorded before the fold).
   */
  defer?(update: BoundaryUpdate, context: Record<string, unknown>): boolean;
  /** Writes a deferred boundary no wait took (the step ended or failed first); false when no longer active. */
  flush?(): Promise<boolean>;
  /** Called at step boundaries; may hand over to a fresh run (never returns then). */
  checkpoint(state: { stepId: string; seq: number; context: Record<string, unknown> }): Promise<void>;
  /** The sequence number of the step in progress, for the record of a cancellation. */
  position: { seq: number };
  /**
   * Whether a side branch (any but `next`) left open ends the execution as EXITED, naming the
   * branch in the step's output; without it (histories recorded before) it ends as COMPLETED.
   */
  openBranchExits?(): boolean;
}

const message = (err: unknown) => rootCause(err) ?? String(err);

/** Thrown by a step's wait when its folded boundary write found the execution no longer active. */
export class ExecutionInactive extends Error {
  constructor() {
    super('the execution is no longer active');
    this.name = 'ExecutionInactive';
  }
}

/**
 * The interpreter, free of Temporal so it can be exercised with any registry: every dispatch goes
 * through `findStepType(registry, …)`. Configs come parsed in the snapshot (services/workflowGraphs snapshotGraph).
 */
export async function interpret(input: ExecutionInput, registry: StepRegistry, rt: Runtime): Promise<{ status: ExecutionEnd; error?: string }> {
  const steps = new Map(input.graph.steps.map((s) => [s.id, s]));
  const edges = new Map(input.graph.transitions.map((t) => [`${t.fromStepId}:${t.branch}`, t.toStepId]));
  let seq = input.resume?.seq ?? 0;
  let step = steps.get(input.resume?.stepId ?? input.graph.triggerStepId);
  let context = { ...input.context };
  if (!step) {
    const error = 'the graph has no trigger step';
    await rt.progress({ end: { status: 'FAILED', error } }, context);
    return { status: 'FAILED', error };
  }
  rt.position.seq = seq;
  // Cancelled before it got going (e.g. by cancel-all while the router was starting it). When the
  // start was recorded with the row, the next mirror write (right after the trigger) tells instead.
  if (input.resume || !input.startRecorded) {
    if (!(await rt.progress({ started: { seq, stepId: step.id, type: step.type } }, context))) return { status: 'CANCELLED' };
  }
  for (;;) {
    let outcome: StepOutcome;
    try {
      const def = findStepType(registry, step.type);
      if (!def) throw new Error(`unknown step type ${step.type}`);
      if (step.invalid) throw new Error(step.invalid);
      outcome = await def.run(step.config, rt.stepContext(step, seq, context));
    } catch (err) {
      if (isCancellation(err)) throw err;
      if (err instanceof ExecutionInactive || !(await flushed(rt))) return { status: 'CANCELLED' };
      const error = `step "${step.name}" (${step.type}) failed: ${message(err)}`;
      await rt.progress({ finished: { seq, status: 'FAILED', error: message(err) }, end: { status: 'FAILED', error } }, context);
      return { status: 'FAILED', error };
    }
    if (!(await flushed(rt))) return { status: 'CANCELLED' };
    if ('end' in outcome) {
      await rt.progress({ finished: { seq, status: 'COMPLETED', output: outcome.output }, end: { status: outcome.end } }, context);
      return { status: outcome.end };
    }
    if (outcome.context) context = { ...context, ...outcome.context };
    const finished = { seq, status: outcome.status ?? 'COMPLETED', output: outcome.output, branch: outcome.branch } as const;
    const target = steps.get(edges.get(`${step.id}:${outcome.branch}`) ?? '');
    if (!target) {
      // The end of the main path completes; a side branch left open (the ‘no’ of an If / else, a
      // timeout) ends the execution there, and its history says which.
      if (outcome.branch !== 'next' && rt.openBranchExits?.()) {
        const title = findStepType(registry, step.type)?.title ?? step.type;
        const ended = `ended at the end of the ‘${outcome.branch}’ branch of ${title}`;
        const output = outcome.output && typeof outcome.output === 'object' ? { ...outcome.output, ended } : { ended };
        await rt.progress({ finished: { ...finished, output }, end: { status: 'EXITED' } }, context);
        return { status: 'EXITED' };
      }
      await rt.progress({ finished, end: { status: 'COMPLETED' } }, context);
      return { status: 'COMPLETED' };
    }
    if (seq + 1 >= MAX_STEPS_PER_EXECUTION) {
      const error = `more than ${MAX_STEPS_PER_EXECUTION} steps: the graph loops without end`;
      await rt.progress({ finished, end: { status: 'FAILED', error } }, context);
      return { status: 'FAILED', error };
    }
    seq += 1;
    step = target;
    rt.position.seq = seq;
    const boundary = { finished, started: { seq, stepId: step.id, type: step.type } };
    const folds = !step.invalid && findStepType(registry, step.type)?.startsWithWait && rt.defer?.(boundary, context);
    if (!folds && !(await rt.progress(boundary, context))) return { status: 'CANCELLED' };
    await rt.checkpoint({ stepId: step.id, seq, context });
  }
}

const flushed = (rt: Runtime) => (rt.flush ? rt.flush() : Promise.resolve(true));

const { recordExecutionProgress, markExecutionWaiting, enterExecutionWait } = proxyLocalActivities<ReturnType<typeof workflowActivities>>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumInterval: '30 seconds' },
});

/**
 * Executions after this marker upsert the StepType search attribute at every step they start: a
 * command that executions started before it never issued, so their replays must not either.
 */
const STEP_TYPE_PATCH = 'step-type-search-attribute';

/**
 * Executions after this marker write the boundary into a waiting step together with its wait (one
 * local activity, `enterExecutionWait`, instead of `recordExecutionProgress` then `markExecutionWaiting`).
 */
const FOLD_PATCH = 'fold-boundary-write';

/**
 * Executions after this marker end EXITED at an open side branch (Runtime.openBranchExits); before
 * it, such an end was COMPLETED, and a replay of one must record the same.
 */
const OPEN_BRANCH_PATCH = 'open-branch-exits';

/**
 * What the execution tells operators: the `state` query, the current details line in the Web UI
 * ("Step 3 of 7 · WAIT_FOR_EVENT 'purchase' · times out …") and the StepType search attribute.
 */
function operatorView(input: ExecutionInput) {
  const steps = new Map(input.graph.steps.map((s) => [s.id, s]));
  const first = steps.get(input.resume?.stepId ?? input.graph.triggerStepId);
  const state: ExecutionState = {
    status: 'RUNNING',
    currentStepId: first?.id ?? null,
    stepType: first?.type ?? null,
    waitingFor: null,
    wakeAt: null,
    seq: input.resume?.seq ?? 0,
  };
  setHandler(executionStateQuery, () => state);
  const show = () => {
    const step = state.currentStepId ? steps.get(state.currentStepId) : undefined;
    const n = state.seq + 1;
    const parts = [n <= steps.size ? `Step ${n} of ${steps.size}` : `Step ${n}`];
    if (step) parts.push(`${step.type} '${step.name}'`);
    if (state.waitingFor) parts.push(`waiting for event '${state.waitingFor}'`);
    if (state.wakeAt) parts.push(`${state.waitingFor ? 'times out' : 'wakes'} ${state.wakeAt}`);
    if (state.status !== 'RUNNING' && state.status !== 'WAITING') parts.push(state.status);
    setCurrentDetails(parts.join(' · '));
  };
  show();
  return {
    state,
    started(seq: number, stepId: string, type: string) {
      Object.assign(state, { status: 'RUNNING', currentStepId: stepId, stepType: type, seq, waitingFor: null, wakeAt: null });
      if (patched(STEP_TYPE_PATCH)) upsertSearchAttributes({ StepType: [type] });
      show();
    },
    waiting(eventName: string | null, ms: number | undefined) {
      Object.assign(state, { status: 'WAITING', waitingFor: eventName, wakeAt: ms === undefined ? null : new Date(Date.now() + ms).toISOString() });
      show();
    },
    running() {
      Object.assign(state, { status: 'RUNNING', waitingFor: null, wakeAt: null });
      show();
    },
    ended(status: ExecutionEnd) {
      Object.assign(state, { status, waitingFor: null, wakeAt: null });
      show();
    },
  };
}

/**
 * The execution workflow over a step registry. The worker registers it over `STEP_TYPES`; a test
 * (or a fork with extra step types) bundles its own workflows file with `executionWorkflow(itsRegistry)`
 * exported as `workflowExecution`. The returned function is named `workflowExecution`, the
 * workflow type clients start.
 */
export function executionWorkflow(registry: StepRegistry) {
  return async function workflowExecution(input: ExecutionInput): Promise<{ status: ExecutionEnd; error?: string }> {
    return runExecution(input, registry);
  };
}

/** The workflow type every execution runs (`exec-<id>`), over the registry of temporal/steps. */
export const workflowExecution = executionWorkflow(STEP_TYPES);

async function runExecution(input: ExecutionInput, registry: StepRegistry): Promise<{ status: ExecutionEnd; error?: string }> {
  const scale = input.timeScale ?? 1;
  // A test run (input.test, absent on every real execution: no patch needed) waits seconds, not days.
  const capped = (ms: number) => (input.test ? Math.min(ms, input.test.waitMs) : ms);
  const seen: string[] = [...(input.resume?.seenEventIds ?? [])];
  let waiting: { name: string; got: EventPayload | null } | null = null;

  const accept = (e: EventPayload) => {
    if (!waiting || waiting.got || e.name !== waiting.name || seen.includes(e.id)) return;
    waiting.got = e;
    seen.push(e.id);
    if (seen.length > SEEN_EVENTS_KEPT) seen.shift();
  };
  // Events that come while the execution is not waiting for them are not for it: dropped.
  setHandler(eventSignal, accept);
  const view = operatorView(input);

  // The context lives in the execution row. Only what steps changed in it since the last write goes
  // out, as a patch, and a received event as its id: the history keeps no event data (temporal/summaries.ts).
  let written: Record<string, unknown> = { ...input.context };
  const changesSinceWritten = (context: Record<string, unknown>) => {
    const patch: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(context)) if (written[key] !== value) patch[key] = value;
    written = context;
    const event = patch.event as EventPayload | undefined;
    if (event) delete patch.event;
    return { ...(Object.keys(patch).length ? { contextPatch: patch } : {}), ...(event ? { contextEventId: event.id } : {}) };
  };
  // A deferred boundary (FOLD_PATCH), kept until a write carried it: a wait's, or flush's.
  let pending: BoundaryUpdate | null = null;
  const flushPending = async () => {
    if (!pending) return true;
    const { active } = await recordExecutionProgress({ executionId: input.executionId, ...pending });
    pending = null;
    return active;
  };
  /** Marks the execution waiting at `seq`, with the deferred boundary when there is one. */
  const enterWait = async (seq: number, wait: { eventName?: string; wakeInMs?: number; reason?: string }) => {
    const waitInput = { executionId: input.executionId, seq, ...wait };
    if (!pending) return markExecutionWaiting(waitInput);
    const { active, early } = await enterExecutionWait({ wait: waitInput, boundary: pending });
    pending = null;
    if (!active) throw new ExecutionInactive();
    return early;
  };
  const rt: Runtime = {
    position: { seq: 0 },
    progress: async (update, context) => {
      if (update.started) view.started(update.started.seq, update.started.stepId, update.started.type);
      if (update.end) view.ended(update.end.status);
      return (await recordExecutionProgress({ executionId: input.executionId, ...changesSinceWritten(context), ...update })).active;
    },
    defer(update, context) {
      if (!patched(FOLD_PATCH)) return false;
      if (update.started) view.started(update.started.seq, update.started.stepId, update.started.type);
      pending = { ...changesSinceWritten(context), ...update };
      return true;
    },
    flush: flushPending,
    openBranchExits: () => patched(OPEN_BRANCH_PATCH),
    stepContext: (step, seq, context) => ({
      executionId: input.executionId,
      projectId: input.projectId,
      workflowId: input.workflowId,
      contactId: input.contactId,
      stepId: step.id,
      stepName: step.name,
      seq,
      context,
      ...(input.test ? { test: { callWebhooks: input.test.callWebhooks } } : {}),
      // Timers need at least a millisecond; a tiny test scale must not round a wait to "no wait".
      duration: (amount, unit) => Math.max(1, capped(Math.round(amount * UNIT_MS[unit] * scale))),
      async sleep(requestedMs, reason) {
        const ms = capped(requestedMs);
        view.waiting(null, ms);
        await enterWait(seq, { wakeInMs: ms, ...(reason ? { reason } : {}) });
        await sleep(Math.max(1, ms));
        view.running();
      },
      async waitForEvent(eventName, requestedTimeoutMs) {
        // A test run waits for no event forever: with no time limit it gives up after its wait, too.
        const timeoutMs = requestedTimeoutMs === undefined ? (input.test ? input.test.waitMs : undefined) : capped(requestedTimeoutMs);
        waiting = { name: eventName, got: null };
        view.waiting(eventName, timeoutMs);
        try {
          // Marks WAITING (so routeEvent signals us from now on) and returns an event that arrived
          // while we were getting there, which no signal will bring.
          const early = await enterWait(seq, { eventName, wakeInMs: timeoutMs });
          if (early) accept(early);
          const w = waiting;
          if (timeoutMs === undefined) {
            await condition(() => w.got !== null);
            return w.got;
          }
          return (await condition(() => w.got !== null, Math.max(1, timeoutMs))) ? w.got : null;
        } finally {
          waiting = null;
          view.running();
        }
      },
    }),
    async checkpoint(state) {
      if (!workflowInfo().continueAsNewSuggested) return;
      // The fresh run writes its own start (input.resume), not what ended the step before it.
      await flushPending();
      await continueAsNew<typeof workflowExecution>({ ...input, context: state.context, resume: { stepId: state.stepId, seq: state.seq, seenEventIds: seen } });
    },
  };

  try {
    return await interpret(input, registry, rt);
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // Cancelled (DELETE …/executions/:id, cancel-all): record it, then end as cancelled in Temporal too.
    view.ended('CANCELLED');
    await CancellationScope.nonCancellable(async () => {
      // A boundary still deferred (cancelled before its wait's write returned) goes first: the
      // cancellation is recorded on the step it started. Both writes are idempotent.
      await flushPending();
      await recordExecutionProgress({
        executionId: input.executionId,
        finished: { seq: rt.position.seq, status: 'CANCELLED' },
        end: { status: 'CANCELLED' },
      });
    });
    throw err;
  }
}
