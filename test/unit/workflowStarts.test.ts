import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Workflows are started by name (temporal/startSpec.ts): the start kits import their workflow for
 * its type only, so the processes that start workflows never load a workflow body outside the
 * sandbox. Node's own module cache tells (jest keeps a registry of its own), as in lazyTransports.
 */

const ROOT = path.resolve(__dirname, '..', '..');
const WORKFLOWS = path.join(ROOT, 'temporal', 'workflows');

const PROBE = `
require('./api/app');
require('./activities');
require('./services/webhooks/handOff');
require('./worker/schedules');
const bodies = Object.keys(require.cache).filter((k) => k.includes('/temporal/workflows/') && !k.endsWith('/start.ts'));
console.log(JSON.stringify(bodies));
`;

function probe(): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '-e', PROBE],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH, DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/unused', JWT_SECRET: 'x'.repeat(40), EMAIL_TRANSPORT: 'log' },
        timeout: 60_000,
      },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout.trim().split('\n').pop()!))),
    );
  });
}

const sources = (dir: string): string[] =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? sources(path.join(dir, d.name)) : d.name.endsWith('.ts') ? [path.join(dir, d.name)] : []));

it('the API, the activities and the starters load no workflow body', async () => {
  expect(await probe()).toEqual([]);
}, 120_000);

it('every start kit and Schedule names a workflow function that temporal/workflows exports', () => {
  const files = sources(WORKFLOWS);
  const defined = new Set(
    files.flatMap((f) =>
      [...fs.readFileSync(f, 'utf8').matchAll(/^export (?:async function (\w+)\(|const (\w+) = executionWorkflow\()/gm)].map((m) => m[1] ?? m[2]),
    ),
  );
  const kits = files.filter((f) => f.endsWith('/start.ts'));
  const namesIn = (f: string) => [...fs.readFileSync(f, 'utf8').matchAll(/(?:startSpec|sweep)\(\s*'(\w+)'/g)].map((m) => m[1]);
  // One kit per workflow directory, each naming its own workflow; scheduled/ holds the kits of the
  // workflows Temporal Schedules run (the sweeps and RSS runs).
  const own = kits.filter((f) => path.basename(path.dirname(f)) !== 'scheduled');
  for (const f of own) expect(namesIn(f)).toEqual([path.basename(path.dirname(f))]);
  const scheduled = namesIn(path.join(WORKFLOWS, 'scheduled', 'start.ts'));
  expect(scheduled).toEqual(expect.arrayContaining(['domainVerification', 'maintenance', 'retention', 'segmentRecompute', 'rssCampaignRun']));
  for (const name of [...own.flatMap(namesIn), ...scheduled]) expect(defined).toContain(name);
  // Schedules take their workflow type from those kits, never from a name written where they are made.
  for (const f of [path.join(ROOT, 'worker', 'schedules.ts'), path.join(ROOT, 'services', 'rssSchedules.ts')]) {
    expect(fs.readFileSync(f, 'utf8')).not.toMatch(/workflowType: '/);
  }
});
