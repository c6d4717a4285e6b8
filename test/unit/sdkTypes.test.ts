import { execFile } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * The SDK's types (packages/sdk/src/schema.d.ts) are generated from the server's own OpenAPI
 * document, as the dashboard's are: a route or schema change without `npm run sdk:types` fails
 * here. (openapi-typescript is ESM-only, so the generator runs in its own tsx process.)
 */
it('packages/sdk/src/schema.d.ts matches what the routes generate', async () => {
  const result = await new Promise<{ code: number; out: string }>((resolve) => {
    execFile(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/sdkTypes.ts', '--check'], { cwd: ROOT }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as any).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
  expect(result.out).toContain('schema.d.ts is up to date');
  expect(result.code).toBe(0);
}, 120_000);
