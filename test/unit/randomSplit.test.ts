import { z } from 'zod';
import * as randomSplit from '../../temporal/steps/randomSplit';

const schema = randomSplit.config(z);
const c = schema.parse({
  branches: [
    { name: 'a', weight: 70 },
    { name: 'b', weight: 30 },
  ],
});

describe('RANDOM_SPLIT', () => {
  it('gives each branch a share of [0, 1) as wide as its weight', () => {
    expect(randomSplit.pick(c, 0)).toBe('a');
    expect(randomSplit.pick(c, 0.6999)).toBe('a');
    expect(randomSplit.pick(c, 0.7)).toBe('b');
    expect(randomSplit.pick(c, 0.9999)).toBe('b');
  });

  it('derives its branches from the config, none of them required (an open one ends the execution)', () => {
    expect(randomSplit.branches(c)).toEqual(['a', 'b']);
    expect('requiredBranches' in randomSplit).toBe(false);
  });

  it.each([
    [{ branches: [{ name: 'a', weight: 1 }] }, 'branches'],
    [{ branches: Array.from({ length: 11 }, (_, i) => ({ name: `b${i}`, weight: 1 })) }, 'branches'],
    [
      {
        branches: [
          { name: 'A', weight: 1 },
          { name: 'b', weight: 1 },
        ],
      },
      'branches.0.name',
    ],
    [
      {
        branches: [
          { name: 'a', weight: 0 },
          { name: 'b', weight: 1 },
        ],
      },
      'branches.0.weight',
    ],
    [
      {
        branches: [
          { name: 'a', weight: 1.5 },
          { name: 'b', weight: 1 },
        ],
      },
      'branches.0.weight',
    ],
    [
      {
        branches: [
          { name: 'a', weight: 1 },
          { name: 'a', weight: 1 },
        ],
      },
      'branches.1.name',
    ],
  ])('refuses %j at %s', (config, path) => {
    const r = schema.safeParse(config);
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join('.'))).toContain(path);
  });
});
