import { z } from 'zod';
import { allRoutes } from '../../api/routes';
import { buildOpenApi, toOpenApiPath } from '../../api/openapi';
import { checkReply, undeclaredKeys } from '../../api/router';
import type { RouteDef } from '../../api/route';
import type { AppContext } from '../../api/context';

/**
 * A success a route declares: a JSON schema, a non-JSON content type (pages, images, CSV), or a
 * status that has no body by definition (204, redirects).
 */
function declaresSuccess(def: RouteDef): boolean {
  return Object.entries(def.responses ?? {}).some(([status, r]) => {
    const code = Number(status);
    if (code < 200 || code >= 400) return false;
    return !!r.schema || !!r.contentType || code === 204 || code >= 300;
  });
}

describe('route responses', () => {
  it('every route declares its success response', () => {
    const undeclared = allRoutes.filter((def) => !declaresSuccess(def)).map((def) => `${def.method.toUpperCase()} ${def.path}`);
    expect(undeclared).toEqual([]);
  });

  it('a 2xx with a body names what the body is', () => {
    // A 200 or 201 with neither a schema nor a content type documents nothing a client can use.
    const vague = allRoutes.flatMap((def) =>
      Object.entries(def.responses ?? {})
        .filter(([status, r]) => Number(status) >= 200 && Number(status) < 300 && Number(status) !== 204 && !r.schema && !r.contentType)
        .map(([status]) => `${def.method.toUpperCase()} ${def.path} ${status}`),
    );
    expect(vague).toEqual([]);
  });

  it('documents non-JSON replies under their content type', () => {
    const doc = buildOpenApi(allRoutes, { title: 'test', version: '0' });
    expect(Object.keys(doc.paths[toOpenApiPath('/unsubscribe/:token')].get.responses[200].content)).toEqual(['text/html']);
    expect(doc.paths[toOpenApiPath('/t/o/:token')].get.responses[200].content['image/gif'].schema).toEqual({ type: 'string', format: 'binary' });
    expect(doc.paths['/health'].get.responses[200].content['application/json'].schema.required).toEqual(['status', 'database', 'temporal']);
  });
});

describe('reply contract check', () => {
  const def = (schema: z.ZodType): RouteDef => ({
    method: 'get',
    path: '/thing',
    auth: 'none',
    tag: 'test',
    summary: 'test',
    responses: { 200: { description: 'ok', schema } },
    handler: () => undefined,
  });
  const ctx = (body: unknown, status = 200) => ({ status, body }) as unknown as AppContext;
  const Thing = z.object({ id: z.string(), items: z.array(z.object({ n: z.number() })) });

  it('passes a reply its schema describes', () => {
    expect(() => checkReply(def(Thing), ctx({ id: 'a', items: [{ n: 1 }] }))).not.toThrow();
  });

  it('fails a field the schema does not declare, at any depth', () => {
    jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(() => checkReply(def(Thing), ctx({ id: 'a', items: [], secretKey: 'sk_live' }))).toThrow(/secretKey: not in the schema/);
    expect(() => checkReply(def(Thing), ctx({ id: 'a', items: [{ n: 1, leak: true }] }))).toThrow(/items\.0\.leak: not in the schema/);
  });

  it('fails a JSON body at a status declared without a schema', () => {
    jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(() => checkReply(def(Thing), ctx({ running: true }, 202))).toThrow(/no response schema declared for 202/);
  });

  it('lets loose objects and records keep their keys', () => {
    const sent = { meta: { any: 1 }, free: { x: { y: 2 } } };
    const schema = z.object({ meta: z.looseObject({}), free: z.record(z.string(), z.unknown()) });
    expect(undeclaredKeys(sent, schema.parse(sent))).toEqual([]);
  });

  it('is on in tests', () => {
    // jest sets NODE_ENV=test: every integration test checks its replies without opting in.
    expect(process.env.NODE_ENV).toBe('test');
  });
});
