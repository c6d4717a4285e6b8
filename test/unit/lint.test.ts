import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The layer rules in biome.jsonc (docs/architecture.md, "Layers") are only worth having if an
 * upward import fails `npm run lint`. Each case writes a probe file into a layer's folder, lints it
 * with the repository's biome.jsonc, and removes it again. One biome run scans the whole project
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
    probes.forEach((p, i) => {
      fs.writeFileSync(path.join(root, files[i]), p.source);
    });
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
        refusedWith: 'Layer rule: services/ never imports api/, activities/, worker/',
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
  test('every folder: each upward import is refused on its own file, each allowed one is not', () => {
    const refused = (folder: string, from: string, message: string): Probe & { refusedWith?: string } => ({
      folder,
      source: `import { x } from '${from}';\nexport { x };\n`,
      refusedWith: message,
    });
    const allowed = (folder: string, from: string): Probe => ({ folder, source: `import { x } from '${from}';\nexport { x };\n` });
    const entries = 'never imports api/, inbound/ or worker/';
    const cases: Array<Probe & { refusedWith?: string }> = [
      refused('activities', '../api/errors', `Layer rule: activities/ ${entries}`),
      refused('activities/steps', '../../inbound/server', `Layer rule: activities/ ${entries}`),
      refused('activities', '../worker/worker', `Layer rule: activities/ ${entries}`),
      allowed('activities/steps', '../../services/executionVariables'),
      // Not even types: the sandbox plugin lets `import type` through, the layer rule does not.
      {
        folder: 'temporal/workflows/routeEvent',
        source: "import type { AppContext } from '../../../api/context';\nexport type { AppContext };\n",
        refusedWith: `Layer rule: temporal/ ${entries}`,
      },
      {
        folder: 'temporal/steps',
        source: "import type { x } from '../../inbound/server';\nexport type { x };\n",
        refusedWith: `Layer rule: temporal/ ${entries}`,
      },
      {
        folder: 'temporal',
        source: "import type { x } from '../worker/worker';\nexport type { x };\n",
        refusedWith: `Layer rule: temporal/ ${entries}`,
      },
      refused('inbound', '../api/errors', 'Layer rule: inbound/ never imports api/'),
      allowed('inbound', '../services/runtime'),
      refused('worker', '../api/app', 'Layer rule: worker/ never imports api/'),
      allowed('worker', '../activities'),
      refused('db', '../inbound/server', 'Layer rule: db/ imports nothing from'),
      // services/ reaches temporal/ through the start kits, the contract, startSpec and the step registry only.
      refused('services', '../temporal/workflows/routeEvent', 'Layer rule: services/ reaches temporal/ only through the start kits'),
      refused('services/webhooks', '../../temporal/workflowIds', 'Layer rule: services/ reaches temporal/ only through the start kits'),
      refused('services', '../temporal/workflows/campaignSend/activities', 'Layer rule: services/ reaches temporal/ only through the start kits'),
      allowed('services', '../temporal/workflows/routeEvent/start'),
      allowed('services/webhooks', '../../temporal/contract'),
      allowed('services', '../temporal/steps'),
      // From services/webhooks, '../temporal' is services/temporal.ts, the gateway.
      allowed('services/webhooks', '../temporal'),
      // web/ never leaves web/, at any depth; its API types are web/src/api/schema.d.ts.
      refused('web/src/pages', '../../../api/schemas/contacts', 'Layer rule: web/ imports only web/'),
      refused('web/src/components/workflow', '../../../../temporal/steps', 'Layer rule: web/ imports only web/'),
      refused('web/src', '../../lib/config', 'Layer rule: web/ imports only web/'),
      allowed('web/src/pages', '../api/client'),
      {
        folder: 'web/src/components/workflow',
        source: "import type { paths } from '../../api/schema';\nexport type { paths };\n",
      },
      // The recommended set is on: a forEach callback that returns a value is an error.
      {
        folder: 'lib',
        source: 'export function all(xs: number[], out: number[]): void {\n  xs.forEach((x) => out.push(x));\n}\n',
        refusedWith: 'lint/suspicious/useIterableCallbackReturn',
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
