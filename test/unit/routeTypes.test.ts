import { z } from 'zod';
import { route } from '../../api/route';

/**
 * A handler returns its reply, and the compiler holds it to the schema its route documents for
 * 2xx (api/route.ts `Reply`). These routes are checked by `tsc` (test/ is in tsconfig.json): each
 * `@ts-expect-error` fails the type check the day a drifting reply compiles again.
 */
const Out = z.object({ success: z.literal(true), id: z.string(), createdAt: z.string() });
const Created = z.object({ id: z.string() });
declare const maybeId: string | null;

const good = [
  route({
    method: 'get',
    path: '/things/:id',
    auth: 'secret',
    tag: 'things',
    summary: 'a thing',
    params: z.object({ id: z.string() }),
    responses: { 200: { description: 'the thing', schema: Out } },
    async handler(_ctx, { params, project }) {
      return { success: true, id: `${project.id}/${params.id}`, createdAt: new Date(0).toISOString() };
    },
  }),
  route({
    method: 'post',
    path: '/things',
    auth: 'session',
    tag: 'things',
    summary: 'make a thing (201) or find it (200)',
    responses: { 200: { description: 'found', schema: Out }, 201: { description: 'made', schema: Created } },
    handler(ctx, { user }) {
      ctx.status = 201;
      return { id: user.id };
    },
  }),
  route({
    method: 'delete',
    path: '/things/:id',
    auth: 'secret',
    tag: 'things',
    summary: 'no content',
    responses: { 204: { description: 'deleted' } },
    async handler(ctx) {
      ctx.status = 204;
    },
  }),
];

export const drifting = [
  route({
    method: 'get',
    path: '/things/:id',
    auth: 'secret',
    tag: 'things',
    summary: 'a Date where the schema says string',
    responses: { 200: { description: 'the thing', schema: Out } },
    // @ts-expect-error createdAt is a Date, the schema (and the JSON) a string
    async handler() {
      return { success: true, id: 'a', createdAt: new Date(0) };
    },
  }),
  route({
    method: 'get',
    path: '/things/:id',
    auth: 'secret',
    tag: 'things',
    summary: 'a field that may be null',
    responses: { 200: { description: 'the thing', schema: Out } },
    // @ts-expect-error id may be null
    async handler() {
      return { success: true, id: maybeId, createdAt: '' };
    },
  }),
  route({
    method: 'get',
    path: '/things/:id',
    auth: 'secret',
    tag: 'things',
    summary: 'a field missing',
    responses: { 200: { description: 'the thing', schema: Out } },
    // @ts-expect-error createdAt is missing
    handler() {
      return { success: true, id: 'a' };
    },
  }),
  route({
    method: 'get',
    path: '/things/:id',
    auth: 'secret',
    tag: 'things',
    summary: 'a literal the schema does not allow',
    responses: { 200: { description: 'the thing', schema: Out } },
    // @ts-expect-error success is `true` in the schema
    handler() {
      return { success: false, id: 'a', createdAt: '' };
    },
  }),
  route({
    method: 'get',
    path: '/things/:id',
    auth: 'secret',
    tag: 'things',
    summary: 'a documented reply the handler forgets to return',
    responses: { 200: { description: 'the thing', schema: Out } },
    // @ts-expect-error a route with a 2xx schema returns its reply
    async handler(ctx) {
      ctx.body = { success: true, id: 'a', createdAt: '' };
    },
  }),
  route({
    method: 'get',
    path: '/things',
    auth: 'secret',
    tag: 'things',
    summary: 'a reply where no 2xx has a schema',
    responses: { 204: { description: 'nothing' } },
    // @ts-expect-error no schema, so nothing to return
    async handler() {
      return { id: 'a' };
    },
  }),
];

it('routes whose replies fit their schemas compile (the drifting ones are @ts-expect-error above)', () => {
  expect(good.map((r) => r.responses && Object.keys(r.responses))).toEqual([['200'], ['200', '201'], ['204']]);
});
