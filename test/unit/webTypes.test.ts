import { execFile } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * The dashboard's API types (web/src/api/schema.d.ts) are generated from the server's own OpenAPI
 * document: one definition per shape. A route or schema change without `npm run web:types` fails here.
 * (openapi-typescript is ESM-only, so the generator runs in its own tsx process.)
 */
it('web/src/api/schema.d.ts matches what the routes generate', async () => {
  const result = await new Promise<{ code: number; out: string }>((resolve) => {
    execFile(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/webTypes.ts', '--check'], { cwd: ROOT }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as any).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
  expect(result.out).toContain('up to date');
  expect(result.code).toBe(0);
}, 120_000);
