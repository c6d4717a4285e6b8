import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The layer rules in biome.json (docs/architecture.md, "Layers") are only worth having if an
 * upward import fails `npm run lint`. Each case writes a probe file into a layer's folder, lints it
 * with the repository's biome.json, and removes it again. One biome run scans the whole project
 * (noFloatingPromises reads other modules' types), so the other cases share a single run.
 */
const root = path.resolve(__dirname, '../..');
const biome = path.join(root, 'node_modules', '.bin', 'biome');

type Probe = { folder: string; source: string };
type Run = { status: number | null; output: string; byFile: Map<string, string> };

/** Writes the probes, lints exactly them, and returns each probe's diagnostics text by index. */
function lintProbes(probes: Probe[]): { run: Run; files: string[] } {
  const files = probes.map((p, i) => path.join(p.folder, `__lint_probe_${process.pid}_${i}.ts`));
  try {
    probes.forEach((p, i) => fs.writeFileSync(path.join(root, files[i]), p.source));
    const result = spawnSync(biome, ['lint', '--colors=off', '--max-diagnostics=none', ...files], { cwd: root, encoding: 'utf8' });
    const output = `${result.stdout}${result.stderr}`;
    // Each diagnostic starts with "path:line:col category ━━━"; everything up to the next header is its text.
    const byFile = new Map<string, string>();
    let current: string | undefined;
    for (const line of output.split('\n')) {
      const header = /^(\S+\.ts):\d+:\d+ /.exec(line);
      if (header) current = header[1];
      else if (/^\S/.test(line)) current = undefined;
      if (current) byFile.set(current, `${byFile.get(current) ?? ''}${line}\n`);
    }
    return { run: { status: result.status, output, byFile }, files };
  } finally {
    for (const f of files) fs.rmSync(path.join(root, f), { force: true });
  }
}

describe('biome layer rules', () => {
  jest.setTimeout(180_000);

  test('db/ importing api/ fails `biome lint` with the layer message; the same file importing lib/ passes', () => {
    const upward = lintProbes([{ folder: 'db', source: "import { NotFoundError } from '../api/errors';\nexport { NotFoundError };\n" }]);
    expect(upward.run.output).toContain('Layer rule: db/ imports nothing from api/');
    expect(upward.run.status).not.toBe(0);

    const downward = lintProbes([{ folder: 'db', source: "import { uuid } from '../lib/ids';\nexport { uuid };\n" }]);
    expect(downward.run.byFile.size).toBe(0);
    expect(downward.run.status).toBe(0);
  });

  test('the other layers: each refused import is reported on its own file, each allowed one is not', () => {
    const cases: Array<Probe & { refusedWith?: string }> = [
      // db/ may name temporal/'s types, never its values.
      {
        folder: 'db',
        source: "import { CONTRACT } from '../temporal/contract';\nexport { CONTRACT };\n",
        refusedWith: 'db/ may import only types from temporal/',
      },
      { folder: 'db', source: "import type { Anything } from '../temporal/contract';\nexport type { Anything };\n" },
      { folder: 'services', source: "import { x } from '../api/errors';\nexport { x };\n", refusedWith: 'Layer rule: services/ never imports api/' },
      {
        folder: 'services/webhooks',
        source: "import { x } from '../../worker/worker';\nexport { x };\n",
        refusedWith: 'Layer rule: services/ never imports api/, activities/ or worker/',
      },
      { folder: 'api/routes', source: "import { x } from '../../activities';\nexport { x };\n", refusedWith: 'Layer rule: api/ never imports activities/' },
      { folder: 'api/routes', source: "import { x } from '../../services/events';\nexport { x };\n" },
      { folder: 'lib', source: "import { x } from '../db/contacts';\nexport { x };\n", refusedWith: 'Layer rule: lib/ is the bottom layer' },
      // temporal/ is sandbox code: values only from temporal/ and lib/triggerStep, types from anywhere.
      {
        folder: 'temporal/workflows',
        source: "import { uuid } from '../../lib/ids';\nexport { uuid };\n",
        refusedWith: 'temporal/ (workflow sandbox) may import values only from temporal/ and lib/triggerStep',
      },
      {
        folder: 'temporal/workflows',
        source:
          "import { TRIGGER_STEP_TYPE } from '../../lib/triggerStep';\nimport type * as activities from '../../activities';\nexport { TRIGGER_STEP_TYPE };\nexport type { activities };\n",
      },
      // An async call nobody awaits, returns or voids.
      {
        folder: 'services',
        source: 'async function later(): Promise<void> {}\nexport function now(): void {\n  later();\n}\n',
        refusedWith: 'lint/nursery/noFloatingPromises',
      },
    ];
    const { run, files } = lintProbes(cases);
    cases.forEach((c, i) => {
      const diagnostics = run.byFile.get(files[i]) ?? '';
      if (c.refusedWith) expect({ file: files[i], diagnostics }).toEqual({ file: files[i], diagnostics: expect.stringContaining(c.refusedWith) });
      else expect({ file: files[i], diagnostics }).toEqual({ file: files[i], diagnostics: '' });
    });
    expect(run.status).not.toBe(0);
  });
});
