import { z } from 'zod';
import { allRoutes } from '../../api/routes';
import { buildOpenApi, toOpenApiPath } from '../../api/openapi';
import { route, RouteDef } from '../../api/route';

const info = { title: 'test', version: '0.0.0' };
const noop = () => undefined;

describe('OpenAPI document', () => {
  const doc = buildOpenApi(allRoutes, info);

  it('lists every registered route under its method', () => {
    expect(doc.openapi).toBe('3.1.0');
    const missing = allRoutes.filter((r) => !doc.paths[toOpenApiPath(r.path)]?.[r.method]).map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
    const ids = allRoutes.map((r) => doc.paths[toOpenApiPath(r.path)][r.method].operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('writes path parameters as {name}, declared as required path parameters', () => {
    for (const p of Object.keys(doc.paths)) expect(p).not.toMatch(/:/);
    const op = doc.paths['/users/@me/projects/{id}'].patch;
    expect(op.parameters).toEqual([expect.objectContaining({ name: 'id', in: 'path', required: true, schema: expect.objectContaining({ format: 'uuid' }) })]);
  });

  it('carries the required fields of a body schema', () => {
    const body = doc.paths['/auth/signup'].post.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(expect.arrayContaining(['email', 'password']));
    expect(body.properties.password.minLength).toBe(8);
  });

  it('picks the security scheme from the route auth and references the error envelope', () => {
    expect(doc.components.securitySchemes).toMatchObject({
      secretKey: { type: 'http', scheme: 'bearer' },
      publicKey: { type: 'http', scheme: 'bearer' },
      session: { type: 'apiKey', in: 'cookie', name: 'token' },
    });
    // The key, or the dashboard's session cookie with X-Project-Id (docs/api.md, Cookie access).
    expect(doc.paths['/contacts'].get.security).toEqual([{ secretKey: [] }, { session: [], projectId: [] }]);
    expect(doc.components.securitySchemes.projectId).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Project-Id' });
    expect(doc.paths['/v1/track'].post.security).toEqual([{ publicKey: [] }]);
    expect(doc.paths['/users/@me'].get.security).toEqual([{ session: [] }]);
    expect(doc.paths['/health'].get.security).toEqual([]);
    const keyed = doc.paths['/contacts'].get.responses;
    for (const s of ['401', '403', '429']) expect(keyed[s].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
    expect(doc.paths['/auth/signup'].post.responses['422']).toBeDefined();
    expect(doc.components.schemas.ErrorEnvelope.properties.error.required).toEqual(expect.arrayContaining(['code', 'message', 'statusCode', 'requestId']));
  });

  it('is built once per route list', () => {
    expect(buildOpenApi(allRoutes, info)).toBe(doc);
  });
});

describe('schema conversion', () => {
  it('turns query objects into parameters and multipart bodies into form data', () => {
    const defs: RouteDef[] = [
      route({
        method: 'get',
        path: '/things',
        auth: 'secret',
        tag: 'things',
        summary: 'list',
        query: z.object({ limit: z.coerce.number().int().max(100).optional(), q: z.string() }),
        handler: noop,
      }),
      route({
        method: 'post',
        path: '/things/import',
        auth: 'secret',
        tag: 'things',
        summary: 'import',
        multipart: { maxFileSize: 1 },
        body: z.object({ files: z.any() }),
        handler: noop,
      }),
    ];
    const doc = buildOpenApi(defs, info);
    expect(doc.paths['/things'].get.parameters).toEqual([
      expect.objectContaining({ name: 'limit', in: 'query', required: false }),
      expect.objectContaining({ name: 'q', in: 'query', required: true }),
    ]);
    expect(Object.keys(doc.paths['/things/import'].post.requestBody.content)).toEqual(['multipart/form-data']);
  });

  it('hoists recursive schemas into components so every $ref resolves', () => {
    const Node: z.ZodType = z.object({
      op: z.string(),
      get children() {
        return z.array(Node).optional();
      },
    });
    const doc = buildOpenApi(
      [route({ method: 'post', path: '/trees', auth: 'secret', tag: 't', summary: 's', body: z.object({ tree: Node }), handler: noop })],
      info,
    );
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      const target = ref.slice(8, -1);
      expect(target).toMatch(/^#\/components\/schemas\//);
      expect(doc.components.schemas[target.split('/').pop()!]).toBeDefined();
    }
  });

  it('names a request shape that differs from its response shape <id>Input, so <id> is always the response shape', () => {
    const Leaf = z.object({ kind: z.literal('leaf'), size: z.number().default(1) }).meta({ id: 'TestLeaf' });
    const Doc = z.object({ leaves: z.array(Leaf) }).meta({ id: 'TestDoc' });
    const Same = z.object({ name: z.string() }).meta({ id: 'TestSame' });
    const doc = buildOpenApi(
      [
        // The request route comes first: the first claim must not take the bare name.
        route({ method: 'post', path: '/docs', auth: 'secret', tag: 't', summary: 's', body: z.object({ doc: Doc, same: Same }), handler: noop }),
        route({
          method: 'get',
          path: '/docs',
          auth: 'secret',
          tag: 't',
          summary: 's',
          responses: { 200: { description: 'd', schema: z.object({ doc: Doc, same: Same }) } },
          handler: () => ({ doc: { leaves: [] }, same: { name: 'n' } }),
        }),
      ],
      info,
    );
    const schemas = doc.components.schemas;
    // size is optional in a request (it has a default), required in a response; TestDoc holds a leaf, so it differs too.
    expect(schemas.TestLeaf.required).toEqual(expect.arrayContaining(['size']));
    expect(schemas.TestLeafInput.required ?? []).not.toContain('size');
    expect(schemas.TestDoc.properties.leaves.items.$ref).toBe('#/components/schemas/TestLeaf');
    expect(schemas.TestDocInput.properties.leaves.items.$ref).toBe('#/components/schemas/TestLeafInput');
    // Only the objects' closing differs: one component.
    expect(schemas.TestSame).toBeDefined();
    expect(schemas.TestSameInput).toBeUndefined();
    expect(Object.keys(schemas).filter((k) => /^Test.*_\d+$/.test(k))).toEqual([]);
  });

  it("carries the email document into the template routes' schemas by reference", () => {
    const doc = buildOpenApi(allRoutes, info);
    const draft = doc.paths['/templates/{id}/draft'];
    expect(draft.get.responses[200].content['application/json'].schema.properties.document).toEqual({
      anyOf: [{ $ref: '#/components/schemas/EmailDocument' }, { type: 'null' }],
      description: expect.any(String),
    });
    expect(JSON.stringify(draft.put.requestBody)).toContain('#/components/schemas/EmailDocumentInput');
    expect(doc.components.schemas.EmailBlock.oneOf ?? doc.components.schemas.EmailBlock.anyOf).toHaveLength(10);
  });
});
