import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { route } from '../route';
import type { RouteDef } from '../route';
import { buildOpenApi } from '../openapi';
import { version, description } from '../../package.json';

// Only these two files are ever read from swagger-ui-dist, so a request cannot name any other path.
const ASSETS = { 'swagger-ui.css': 'text/css; charset=utf-8', 'swagger-ui-bundle.js': 'application/javascript; charset=utf-8' } as const;
type AssetName = keyof typeof ASSETS;
const AssetParams = z.object({ file: z.enum(Object.keys(ASSETS) as [AssetName, ...AssetName[]]) });

const assetCache = new Map<AssetName, Buffer>();
async function readAsset(file: AssetName): Promise<Buffer> {
  let data = assetCache.get(file);
  if (!data) {
    const dir: string = require('swagger-ui-dist').getAbsoluteFSPath();
    data = await fs.readFile(path.join(dir, file));
    assetCache.set(file, data);
  }
  return data;
}

/**
 * routes/index.ts imports this file, so importing it back would be circular at load time;
 * by the time a request arrives the registry is complete.
 */
function allRoutes(): RouteDef[] {
  return (require('./index') as typeof import('./index')).allRoutes;
}

// Absolute URLs: relative ones would break when the page is opened as /docs/.
const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>svc-mail API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', persistAuthorization: true, deepLinking: true });
  </script>
</body>
</html>
`;

/** The document's top level (api/openapi.ts builds it); its paths and components are whatever the routes declare. */
const OpenApiOut = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.unknown()),
});

const routes: RouteDef[] = [
  route({
    method: 'get',
    path: '/openapi.json',
    auth: 'none',
    tag: 'docs',
    summary: 'This OpenAPI 3.1 document, generated from the routes’ own schemas',
    responses: { 200: { description: 'the OpenAPI document', schema: OpenApiOut } },
    handler() {
      // buildOpenApi's result is loosely typed JSON; the schema checks its top level.
      return buildOpenApi(allRoutes(), { title: 'svc-mail API', version, description }) as z.input<typeof OpenApiOut>;
    },
  }),
  route({
    method: 'get',
    path: '/docs',
    auth: 'none',
    tag: 'docs',
    summary: 'Interactive API reference (Swagger UI, served locally)',
    responses: { 200: { description: 'the Swagger UI page', contentType: 'text/html' } },
    handler(ctx) {
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = PAGE;
    },
  }),
  route({
    method: 'get',
    path: '/docs/assets/:file',
    auth: 'none',
    tag: 'docs',
    summary: 'Swagger UI static files',
    params: AssetParams,
    resource: 'File',
    responses: { 200: { description: 'the file', contentType: Object.values(ASSETS).map((type) => type.split(';')[0]) } },
    async handler(ctx, { params }) {
      ctx.type = ASSETS[params.file];
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.body = await readAsset(params.file);
    },
  }),
];
export default routes;
