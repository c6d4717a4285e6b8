/**
 * `npm run bench -- <name> [args…]` runs bench/<name>.ts with its arguments; with no name, lists the
 * benches. docs/benchmarks.md says what each measures.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

const HELPERS = new Set(['run', 'actions', 'cpu', 'loadClient', 'stack']);
const benches = fs
  .readdirSync(__dirname)
  .filter((f) => f.endsWith('.ts') && !HELPERS.has(path.basename(f, '.ts')))
  .map((f) => path.basename(f, '.ts'))
  .sort();

const [name, ...args] = process.argv.slice(2);
if (!name || !benches.includes(name)) {
  process.stderr.write(`${name ? `no bench named '${name}'\n` : ''}usage: npm run bench -- <${benches.join('|')}> [args…]\n`);
  process.exit(name ? 2 : 0);
}
const tsx = path.join(__dirname, '..', 'node_modules', '.bin', 'tsx');
const result = spawnSync(tsx, [path.join(__dirname, `${name}.ts`), ...args], { stdio: 'inherit' });
process.exit(result.status ?? 1);
