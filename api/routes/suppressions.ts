import { route } from '../route';
import { badRequest, notFound } from '../errors';
import { SuppressionAdded, SuppressionCreate, SuppressionListQuery, SuppressionPage, SuppressionParams } from '../schemas/suppressions';
import { addSuppressions, deleteSuppression, listSuppressions, parseSuppressionCursor, SuppressionRow } from '../../db/suppressions';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

const present = (s: SuppressionRow) => ({ email: s.email, reason: s.reason, emailId: s.email_id, createdAt: iso(s.created_at)!, expiresAt: iso(s.expires_at) });

const common = { auth: 'secret', tag: 'suppressions', resource: 'Suppression' } as const;

export default [
  route({
    ...common,
    method: 'get',
    path: '/suppressions',
    summary: "The project's suppression list in address order (cursor pagination); expired entries are listed too",
    query: SuppressionListQuery,
    responses: { 200: { description: 'a page of entries', schema: SuppressionPage } },
    async handler(ctx, { query, project }) {
      const after = query.cursor === undefined ? undefined : parseSuppressionCursor(query.cursor);
      if (after === null) throw badRequest('Invalid cursor: pass the cursor of a previous page');
      const page = await listSuppressions(ctx.deps.knex, { projectId: project.id, limit: query.limit, after, search: query.search, reason: query.reason });
      return { data: page.rows.map(present), cursor: page.cursor, hasMore: page.hasMore };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/suppressions',
    summary: 'Add addresses (MANUAL) to the suppression list; those already on it are left as they are',
    body: SuppressionCreate,
    responses: {
      200: { description: 'every address was already on the list', schema: SuppressionAdded },
      201: { description: 'at least one address was added', schema: SuppressionAdded },
    },
    async handler(ctx, { body, project }) {
      const r = await addSuppressions(ctx.deps.knex, project.id, body.emails, body.reason, body.expiresAt ?? null);
      ctx.status = r.added.length ? 201 : 200;
      return r;
    },
  }),
  route({
    ...common,
    method: 'delete',
    path: '/suppressions/:email',
    responses: { 204: { description: 'deleted' } },
    summary: 'Remove an address from the suppression list; mail to it is handed over again',
    params: SuppressionParams,
    async handler(ctx, { params, project }) {
      if (!(await deleteSuppression(ctx.deps.knex, project.id, params.email))) throw notFound('Suppression');
      ctx.status = 204;
    },
  }),
];
