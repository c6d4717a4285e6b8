import { STEP_TYPES, findStepType } from '../../temporal/steps';
import { stepBranches, stepConfigSchema } from '../../services/workflowGraphs';
import { WORKFLOW_STARTERS } from '../../services/workflowStarters';

/**
 * The starters of "Start from a flow" against the registry: every step is a registered type whose
 * config parses once its template is picked, every transition uses a branch its step has, and every
 * step is reached from the trigger. (test/integration/workflowStartersAndTests.test.ts enables each
 * one through the API.)
 */

const TEMPLATE = '00000000-0000-4000-8000-000000000001';

describe.each(WORKFLOW_STARTERS.map((s) => [s.key, s] as const))('starter %s', (_key, starter) => {
  it('has steps of registered types whose configs parse, a template left to pick on each email', () => {
    for (const step of starter.steps) {
      const def = findStepType(STEP_TYPES, step.type);
      expect(def).toBeDefined();
      if (step.type === 'SEND_EMAIL') {
        expect(step.config).toEqual({});
        expect(stepConfigSchema(def!).safeParse(step.config).success).toBe(false);
        expect(stepConfigSchema(def!).safeParse({ templateId: TEMPLATE }).success).toBe(true);
      } else {
        expect(stepConfigSchema(def!).safeParse(step.config).success).toBe(true);
      }
    }
  });

  it('connects its steps on branches they have, and reaches every step from the trigger', () => {
    const keys = new Map(starter.steps.map((s) => [s.key, s]));
    expect(keys.size).toBe(starter.steps.length);
    for (const [from, to, branch] of starter.transitions) {
      expect(keys.has(to)).toBe(true);
      const source = from === 'trigger' ? { type: 'TRIGGER', config: { eventName: starter.eventName } } : keys.get(from)!;
      expect(stepBranches(findStepType(STEP_TYPES, source.type)!, source.config)).toContain(branch);
    }
    const reached = new Set(['trigger']);
    for (let grew = true; grew; ) {
      grew = false;
      for (const [from, to] of starter.transitions)
        if (reached.has(from) && !reached.has(to)) {
          reached.add(to);
          grew = true;
        }
    }
    expect([...keys.keys()].every((k) => reached.has(k))).toBe(true);
  });
});

it('offers at least the five flows people ask for', () => {
  expect(WORKFLOW_STARTERS.map((s) => s.key)).toEqual(
    expect.arrayContaining(['welcome-series', 'abandoned-cart', 're-engagement', 'double-opt-in-nurture', 'post-purchase']),
  );
});
