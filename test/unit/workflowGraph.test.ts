import { z } from 'zod';
import { STEP_TYPES, addableStepTypes, StepModule, StepContext, StepRegistry } from '../../temporal/steps';
import {
  interpret,
  ExecutionInactive,
  ExecutionInput,
  ProgressUpdate,
  Runtime,
  GraphSnapshot,
  MAX_STEPS_PER_EXECUTION,
} from '../../temporal/workflows/workflowExecution';
import type { BoundaryUpdate } from '../../temporal/contract';
import { StepCreate, stepCreateSchema, parseStepConfig } from '../../api/schemas/workflows';
import { Graph, StepRow, TransitionRow } from '../../db/workflows';
import { graphProblems, snapshotGraph, transitionBranchProblem } from '../../services/workflowGraphs';

/** An eighth step type, defined the way docs/step-types.md says: one module, then one registry line. */
const note: StepModule<{ text: string }> = {
  type: 'NOTE',
  config: (zod) => zod.strictObject({ text: zod.string().min(1) }),
  branches: ['next'],
  async run(c, ctx) {
    return { branch: 'next', output: { noted: c.text, seq: ctx.seq }, context: { note: c.text } };
  },
};
const withNote: StepRegistry = [...STEP_TYPES, note];

/** A runtime without Temporal: records mirror writes, sleeps instantly, answers waits from a script. */
function fakeRuntime(events: Record<string, { id: string } | null> = {}) {
  const updates: Omit<ProgressUpdate, 'executionId'>[] = [];
  const slept: number[] = [];
  const rt: Runtime = {
    position: { seq: 0 },
    async progress(update, context) {
      updates.push({ ...update, context });
      return true;
    },
    stepContext: (step, seq, context): StepContext => ({
      executionId: 'e',
      projectId: 'p',
      workflowId: 'w',
      contactId: 'c',
      stepId: step.id,
      stepName: step.name,
      seq,
      context,
      duration: (amount, unit) => amount * { minutes: 60_000, hours: 3_600_000, days: 86_400_000, weeks: 604_800_000 }[unit],
      sleep: async (ms) => void slept.push(ms),
      waitForEvent: async (name) => (events[name] ? { id: events[name]!.id, name, data: { via: 'test' }, createdAt: 'now' } : null),
    }),
    checkpoint: async () => undefined,
  };
  return { rt, updates, slept };
}

const step = (id: string, type: string, config: unknown = {}) => ({ id, type, name: id, config });
const input = (steps: GraphSnapshot['steps'], transitions: [string, string, string?][]): ExecutionInput => ({
  executionId: 'e',
  projectId: 'p',
  workflowId: 'w',
  contactId: 'c',
  context: { given: 1 },
  graph: {
    triggerStepId: 't',
    steps,
    transitions: transitions.map(([fromStepId, toStepId, branch]) => ({ fromStepId, toStepId, branch: (branch ?? 'next') as any })),
  },
});

/** The same graph as Postgres rows, for graphProblems. */
function rows(g: GraphSnapshot): Graph {
  return {
    steps: g.steps.map((s) => ({ id: s.id, workflow_id: 'w', type: s.type, name: s.name, config: s.config }) as StepRow),
    transitions: g.transitions.map(
      (t, i) => ({ id: `x${i}`, workflow_id: 'w', from_step_id: t.fromStepId, to_step_id: t.toStepId, branch: t.branch }) as TransitionRow,
    ),
  };
}

describe('the step registry drives both validation and execution', () => {
  it('holds the seven spec step types, RANDOM_SPLIT and WAIT_UNTIL, plus the engine-owned TRIGGER', () => {
    expect(STEP_TYPES.map((s) => s.type).sort()).toEqual([
      'CONDITION',
      'DELAY',
      'EXIT',
      'RANDOM_SPLIT',
      'SEND_EMAIL',
      'TRIGGER',
      'UPDATE_CONTACT',
      'WAIT_FOR_EVENT',
      'WAIT_UNTIL',
      'WEBHOOK',
    ]);
    expect(new Set(STEP_TYPES.map((s) => s.type)).size).toBe(STEP_TYPES.length);
  });

  it("builds the API's type enum from the registry", () => {
    const schema = z.toJSONSchema(StepCreate, { io: 'input', unrepresentable: 'any' }) as any;
    expect(schema.properties.type.enum.sort()).toEqual(addableStepTypes(STEP_TYPES).sort());
    expect(addableStepTypes(STEP_TYPES)).not.toContain('TRIGGER');
    expect(StepCreate.safeParse({ type: 'NOTE', config: { text: 'hi' } }).success).toBe(false);
  });

  it('validates a new type with its own schema once it is in the registry, and nowhere else', () => {
    const schema = stepCreateSchema(withNote);
    expect(schema.parse({ type: 'NOTE', config: { text: 'hi' } })).toMatchObject({ type: 'NOTE', config: { text: 'hi' } });
    const bad = schema.safeParse({ type: 'NOTE', config: {} });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0].path).toEqual(['config', 'text']);
    expect(parseStepConfig('NOTE', { text: 'x' }, withNote)).toEqual({ data: { text: 'x' } });
    expect(parseStepConfig('NOTE', { text: 'x' })).toEqual({ errors: [expect.objectContaining({ field: 'type' })] });
  });

  it('dispatches a new type to its run function once it is in the registry', async () => {
    const graph = input(
      [step('t', 'TRIGGER', { eventName: 'e' }), step('n', 'NOTE', { text: 'hello' }), step('x', 'EXIT')],
      [
        ['t', 'n'],
        ['n', 'x'],
      ],
    );
    expect(graphProblems(rows(graph.graph), withNote)).toEqual([]);
    const { rt, updates } = fakeRuntime();
    expect(await interpret(graph, withNote, rt)).toEqual({ status: 'EXITED' });
    expect(updates.find((u) => u.finished?.seq === 1)?.finished).toEqual({ seq: 1, status: 'COMPLETED', output: { noted: 'hello', seq: 1 }, branch: 'next' });
    expect(updates.at(-1)!.context).toEqual({ given: 1, note: 'hello' });

    // Without the registry line, the same graph is refused when enabling and fails when run.
    expect(graphProblems(rows(graph.graph))).toEqual([{ stepId: 'n', field: 'type', message: 'unknown step type NOTE' }]);
    const without = fakeRuntime();
    const failed = await interpret(graph, STEP_TYPES, without.rt);
    expect(failed.status).toBe('FAILED');
    expect(failed.error).toMatch(/unknown step type NOTE/);
  });
});

describe('interpret', () => {
  it('walks branches, records every step start and end, and ends COMPLETED where no transition leads on', async () => {
    const graph = input(
      [
        step('t', 'TRIGGER', { eventName: 'e' }),
        step('d', 'DELAY', { amount: 2, unit: 'days' }),
        step('w', 'WAIT_FOR_EVENT', { eventName: 'buy', timeout: { amount: 1, unit: 'hours' } }),
        step('x', 'EXIT'),
      ],
      [
        ['t', 'd'],
        ['d', 'w'],
        ['w', 'x', 'timeout'],
      ],
    );
    const bought = fakeRuntime({ buy: { id: 'ev1' } });
    expect(await interpret(graph, STEP_TYPES, bought.rt)).toEqual({ status: 'COMPLETED' });
    expect(bought.slept).toEqual([2 * 86_400_000]);
    expect(bought.updates.map((u) => [u.finished?.seq, u.started?.type, u.end?.status])).toEqual([
      [undefined, 'TRIGGER', undefined],
      [0, 'DELAY', undefined],
      [1, 'WAIT_FOR_EVENT', undefined],
      [2, undefined, 'COMPLETED'],
    ]);
    expect(bought.updates.at(-1)!.context).toMatchObject({ event: { id: 'ev1', name: 'buy', data: { via: 'test' } } });

    const idle = fakeRuntime();
    expect(await interpret(graph, STEP_TYPES, idle.rt)).toEqual({ status: 'EXITED' });
    expect(idle.updates.find((u) => u.finished?.seq === 2)?.finished?.output).toEqual({ timedOut: true });
  });

  it('runs configs as parsed at start (defaults applied), and fails on one its type refuses, naming the step', async () => {
    const hook = input([step('t', 'TRIGGER', { eventName: 'e' }), step('w', 'WEBHOOK', { url: 'https://example.com/' })], [['t', 'w']]);
    expect(snapshotGraph(rows(hook.graph)).steps[1]).toEqual({ id: 'w', type: 'WEBHOOK', name: 'w', config: { url: 'https://example.com/', method: 'POST' } });

    const { rt, updates } = fakeRuntime();
    const stale = input([step('t', 'TRIGGER', { eventName: 'e' }), step('d', 'DELAY', { amount: 1, unit: 'years' })], [['t', 'd']]);
    const result = await interpret({ ...stale, graph: snapshotGraph(rows(stale.graph)) }, STEP_TYPES, rt);
    expect(result.status).toBe('FAILED');
    expect(result.error).toMatch(/^step "d" \(DELAY\) failed: invalid DELAY config: unit/);
    expect(updates.at(-1)).toMatchObject({ finished: { seq: 1, status: 'FAILED' }, end: { status: 'FAILED' } });
  });

  it('stops a loop that never ends, and stops when the execution was cancelled behind its back', async () => {
    const looping = input(
      [step('t', 'TRIGGER', { eventName: 'e' }), step('a', 'NOTE', { text: 'a' }), step('b', 'NOTE', { text: 'b' })],
      [
        ['t', 'a'],
        ['a', 'b'],
        ['b', 'a'],
      ],
    );
    const { rt } = fakeRuntime();
    const result = await interpret(looping, withNote, rt);
    expect(result).toEqual({ status: 'FAILED', error: expect.stringContaining(`more than ${MAX_STEPS_PER_EXECUTION} steps`) });

    const gone = fakeRuntime();
    let writes = 0;
    gone.rt.progress = async () => ++writes < 3;
    expect(await interpret(looping, withNote, gone.rt)).toEqual({ status: 'CANCELLED' });
    expect(writes).toBe(3);
  });
});

/**
 * A runtime that folds as the Temporal one does after `fold-boundary-write`: a deferred boundary is
 * carried by the next wait's write, or written by flush. `writes` is every write in order.
 */
function foldingRuntime(opts: { activeAtWait?: boolean; activeAtFlush?: boolean } = {}) {
  const base = fakeRuntime({ buy: { id: 'ev1' } });
  const writes: { kind: 'progress' | 'wait' | 'flush'; boundary?: BoundaryUpdate; update?: Omit<ProgressUpdate, 'executionId'>; seq?: number }[] = [];
  let pending: BoundaryUpdate | null = null;
  const rt: Runtime = {
    ...base.rt,
    async progress(update, context) {
      writes.push({ kind: 'progress', update: { ...update, context } });
      return true;
    },
    defer(update) {
      pending = update;
      return true;
    },
    async flush() {
      if (!pending) return true;
      writes.push({ kind: 'flush', boundary: pending });
      pending = null;
      return opts.activeAtFlush ?? true;
    },
    stepContext(step, seq, context) {
      const ctx = base.rt.stepContext(step, seq, context);
      const wait = async () => {
        writes.push({ kind: 'wait', seq, ...(pending ? { boundary: pending } : {}) });
        pending = null;
        if (opts.activeAtWait === false) throw new ExecutionInactive();
      };
      return {
        ...ctx,
        sleep: async (ms, reason) => {
          await wait();
          return ctx.sleep(ms, reason);
        },
        waitForEvent: async (name, timeoutMs) => {
          await wait();
          return ctx.waitForEvent(name, timeoutMs);
        },
      };
    },
  };
  return { rt, writes };
}

/** A step type that declares startsWithWait but returns at once: the engine must still write its start. */
const hasty: StepModule<Record<string, never>> = {
  type: 'HASTY',
  config: (zod) => zod.strictObject({}),
  branches: ['next'],
  startsWithWait: true,
  async run() {
    return { branch: 'next', output: { waited: false } };
  },
};

describe('interpret folds a boundary into the wait that follows it', () => {
  const waitGraph = input(
    [
      step('t', 'TRIGGER', { eventName: 'e' }),
      step('w', 'WAIT_FOR_EVENT', { eventName: 'buy' }),
      step('d', 'DELAY', { amount: 1, unit: 'hours' }),
      step('n', 'NOTE', { text: 'n' }),
    ],
    [
      ['t', 'w'],
      ['w', 'd', 'next'],
      ['d', 'n'],
    ],
  );
  const shape = (w: ReturnType<typeof foldingRuntime>['writes'][number]) => {
    const u: Omit<ProgressUpdate, 'executionId'> = w.boundary ?? w.update ?? {};
    return [w.kind, w.seq, u.finished?.seq, u.started?.type, u.end?.status];
  };

  it('writes each boundary into a waiting step with that wait: no separate progress write for WAIT_FOR_EVENT and DELAY', async () => {
    const { rt, writes } = foldingRuntime();
    expect(await interpret(waitGraph, withNote, rt)).toEqual({ status: 'COMPLETED' });
    expect(writes.map(shape)).toEqual([
      ['progress', undefined, undefined, 'TRIGGER', undefined],
      ['wait', 1, 0, 'WAIT_FOR_EVENT', undefined],
      ['wait', 2, 1, 'DELAY', undefined],
      ['progress', undefined, 2, 'NOTE', undefined],
      ['progress', undefined, 3, undefined, 'COMPLETED'],
    ]);
  });

  it('writes every boundary itself when the runtime does not fold (histories from before the fold)', async () => {
    const { rt, writes } = foldingRuntime();
    rt.defer = () => false;
    expect(await interpret(waitGraph, withNote, rt)).toEqual({ status: 'COMPLETED' });
    expect(writes.map(shape)).toEqual([
      ['progress', undefined, undefined, 'TRIGGER', undefined],
      ['progress', undefined, 0, 'WAIT_FOR_EVENT', undefined],
      ['wait', 1, undefined, undefined, undefined],
      ['progress', undefined, 1, 'DELAY', undefined],
      ['wait', 2, undefined, undefined, undefined],
      ['progress', undefined, 2, 'NOTE', undefined],
      ['progress', undefined, 3, undefined, 'COMPLETED'],
    ]);
  });

  it("flushes a deferred boundary the step did not wait with before the step's own end, and before a failure", async () => {
    const graph = input(
      [step('t', 'TRIGGER', { eventName: 'e' }), step('h', 'HASTY'), step('n', 'NOTE', { text: 'n' })],
      [
        ['t', 'h'],
        ['h', 'n'],
      ],
    );
    const ok = foldingRuntime();
    expect(await interpret(graph, [...withNote, hasty], ok.rt)).toEqual({ status: 'COMPLETED' });
    expect(ok.writes.map(shape)).toEqual([
      ['progress', undefined, undefined, 'TRIGGER', undefined],
      ['flush', undefined, 0, 'HASTY', undefined],
      ['progress', undefined, 1, 'NOTE', undefined],
      ['progress', undefined, 2, undefined, 'COMPLETED'],
    ]);

    const failing: StepModule = { ...hasty, run: async () => Promise.reject(new Error('boom')) };
    const bad = foldingRuntime();
    const result = await interpret(graph, [...withNote, failing], bad.rt);
    expect(result).toEqual({ status: 'FAILED', error: 'step "h" (HASTY) failed: boom' });
    expect(bad.writes.map(shape)).toEqual([
      ['progress', undefined, undefined, 'TRIGGER', undefined],
      ['flush', undefined, 0, 'HASTY', undefined],
      ['progress', undefined, 1, undefined, 'FAILED'],
    ]);
  });

  it('ends CANCELLED, writing nothing more, when the folded write or the flush finds the execution cancelled', async () => {
    const atWait = foldingRuntime({ activeAtWait: false });
    expect(await interpret(waitGraph, withNote, atWait.rt)).toEqual({ status: 'CANCELLED' });
    expect(atWait.writes.map(shape)).toEqual([
      ['progress', undefined, undefined, 'TRIGGER', undefined],
      ['wait', 1, 0, 'WAIT_FOR_EVENT', undefined],
    ]);

    const graph = input([step('t', 'TRIGGER', { eventName: 'e' }), step('h', 'HASTY')], [['t', 'h']]);
    const atFlush = foldingRuntime({ activeAtFlush: false });
    expect(await interpret(graph, [...withNote, hasty], atFlush.rt)).toEqual({ status: 'CANCELLED' });
    expect(atFlush.writes.map(shape)).toEqual([
      ['progress', undefined, undefined, 'TRIGGER', undefined],
      ['flush', undefined, 0, 'HASTY', undefined],
    ]);
  });

  it('does not fold into a step whose config is invalid: its failure is recorded on a written start', async () => {
    const graph = input([step('t', 'TRIGGER', { eventName: 'e' }), { ...step('d', 'DELAY'), invalid: 'invalid DELAY config' }], [['t', 'd']]);
    const { rt, writes } = foldingRuntime();
    expect((await interpret(graph, withNote, rt)).status).toBe('FAILED');
    expect(writes.map(shape)).toEqual([
      ['progress', undefined, undefined, 'TRIGGER', undefined],
      ['progress', undefined, 0, 'DELAY', undefined],
      ['progress', undefined, 1, undefined, 'FAILED'],
    ]);
  });
});

describe('graph rules', () => {
  const cond = step('c', 'CONDITION', { condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] } });

  it('needs a step after the trigger, connected to it', () => {
    expect(graphProblems(rows(input([step('t', 'TRIGGER', { eventName: 'e' })], []).graph))).toEqual([
      { stepId: 't', field: 'steps', message: 'Trigger: add a first step' },
    ]);
    expect(graphProblems(rows(input([step('t', 'TRIGGER', { eventName: 'e' }), step('x', 'EXIT')], []).graph))).toEqual([
      { stepId: 't', field: 'branches.next', message: 'Trigger: connect a first step' },
    ]);
  });

  it('lets a branch end open, and allows only branches a step can take', () => {
    const g = input(
      [step('t', 'TRIGGER', { eventName: 'e' }), cond, step('x', 'EXIT'), step('d', 'DELAY', { amount: 1, unit: 'hours' })],
      [
        ['t', 'c'],
        ['c', 'x', 'yes'],
        ['d', 'x', 'timeout'],
      ],
    );
    expect(graphProblems(rows(g.graph))).toEqual([{ stepId: 'd', field: 'branches.timeout', message: 'Wait: has no ‘timeout’ branch' }]);
  });

  it('names invalid configs by their path inside the step', () => {
    const g = input([step('t', 'TRIGGER', { eventName: 'e' }), step('w', 'WEBHOOK', { url: 'gopher://x', method: 'DELETE' })], [['t', 'w']]);
    expect(graphProblems(rows(g.graph)).map((p) => [p.stepId, p.field])).toEqual([
      ['w', 'config.url'],
      ['w', 'config.method'],
    ]);
  });

  it('allows per type only the branches the type declares', () => {
    expect(transitionBranchProblem('CONDITION', 'yes')).toBeNull();
    expect(transitionBranchProblem('CONDITION', 'next')).toMatch(/yes, no/);
    expect(transitionBranchProblem('WAIT_FOR_EVENT', 'timeout')).toBeNull();
    expect(transitionBranchProblem('EXIT', 'next')).toMatch(/ends the execution/);
    expect(transitionBranchProblem('TRIGGER', 'next')).toBeNull();
  });
});
