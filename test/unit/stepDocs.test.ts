import fs from 'node:fs';
import path from 'node:path';
import { stepTable, withStepTable } from '../../services/stepDocs';
import { STEP_TYPES, StepModule } from '../../temporal/steps';

const doc = () => fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'workflows.md'), 'utf8');

describe('the step table in docs/workflows.md', () => {
  it('is the one the registry generates (run `npm run docs:steps` after changing a step type)', () => {
    expect(doc()).toBe(withStepTable(doc()));
  });

  it('has a row per addable type, with derived branches and references from the step files', () => {
    const split: StepModule = {
      type: 'SPLIT',
      config: (z) => z.object({}),
      branches: () => [],
      references: { template: ['a.b'] },
      docs: { config: '`{ a | b }`', notes: 'n' },
      run: async () => ({ branch: 'x' }),
    };
    const table = stepTable([...STEP_TYPES, split]).split('\n');
    expect(table).toHaveLength(2 + STEP_TYPES.filter((s) => !s.internal).length + 1);
    expect(table.at(-1)).toBe('| `SPLIT` | `{ a \\| b }` | named by its config | template (`a.b`) | n |');
    expect(table.find((r) => r.startsWith('| `CONDITION`'))).toContain('| yes, no |');
    expect(table.some((r) => r.startsWith('| `TRIGGER`'))).toBe(false);
  });
});
