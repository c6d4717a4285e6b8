import { execFile } from 'node:child_process';
import path from 'node:path';
import { OPERATORS_BY_KIND } from '../../db/filters';
import { OPERATORS_BY_KIND as GENERATED_OPERATORS } from '../../web/src/api/filterOperators';

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * The dashboard's API types (web/src/api/schema.d.ts) are generated from the server's own OpenAPI
 * document: one definition per shape. A route or schema change without `npm run web:types` fails here;
 * so does a change to the compiler's operator table without regenerating web/src/api/filterOperators.ts.
 * (openapi-typescript is ESM-only, so the generator runs in its own tsx process.)
 */
it('web/src/api/schema.d.ts and filterOperators.ts match what the routes generate', async () => {
  const result = await new Promise<{ code: number; out: string }>((resolve) => {
    execFile(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/webTypes.ts', '--check'], { cwd: ROOT }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as any).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
  expect(result.out).toContain('schema.d.ts is up to date');
  expect(result.out).toContain('filterOperators.ts is up to date');
  expect(result.code).toBe(0);
}, 120_000);

it("the filter builder's operators are the compiler's, kind by kind and in its order", () => {
  expect(GENERATED_OPERATORS).toEqual(OPERATORS_BY_KIND);
});
