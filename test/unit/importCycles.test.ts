import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cycles, importGraph, MAX_CYCLE } from '../../scripts/importCycles';

/**
 * No import cycle among the server folders may grow past MAX_CYCLE files (scripts/importCycles.ts,
 * `npm run cycles` prints it). A cycle through types counts: the second case plants one made only
 * of `import type` and re-exports, with a folder index, and expects it found whole.
 */
describe('import cycles', () => {
  test(`the server folders have no import cycle larger than ${MAX_CYCLE} files`, () => {
    const largest = cycles(importGraph())[0] ?? [];
    // The files are in the message, so a failure says which cycle grew.
    expect({ size: largest.length <= MAX_CYCLE ? 'within' : 'too large', files: largest }).toEqual({ size: 'within', files: largest });
  });

  test('a five-file cycle through type imports, a re-export and a folder index is found with all its files', () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'cycles-'));
    try {
      const write = (file: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(base, file)), { recursive: true });
        fs.writeFileSync(path.join(base, file), text);
      };
      write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'commonjs', moduleResolution: 'node', strict: true } }));
      write('temporal/workflows/w.ts', "import type { act } from '../../activities';\nexport type W = typeof act;\n");
      write('activities/index.ts', "export { act } from './act';\n");
      write('activities/act.ts', "import { run } from '../services/run';\nexport const act = run;\n");
      write('services/run.ts', "import { kit } from '../temporal/workflows/kit';\nexport const run = () => kit;\n");
      write('temporal/workflows/kit.ts', "import type { W } from './w';\nexport const kit: W | null = null;\n");
      // Outside the cycle: imports into it, a package import, and a comment that only looks like an import.
      write('api/route.ts', "import { run } from '../services/run';\nimport fs from 'node:fs';\n// import { x } from '../db/nothing';\nexport { run, fs };\n");

      const found = cycles(importGraph(base));
      expect(found).toEqual([
        ['activities/act.ts', 'activities/index.ts', 'services/run.ts', 'temporal/workflows/kit.ts', 'temporal/workflows/w.ts'].map((f) => path.normalize(f)),
      ]);
      expect(found[0].length).toBeGreaterThan(MAX_CYCLE);
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });
});
