import { route } from '../route';
import { badRequest, notFound } from '../errors';
import { SuppressionAdded, SuppressionCreate, SuppressionListQuery, SuppressionPage, SuppressionParams } from '../schemas/suppressions';
import { addSuppressions, deleteSuppression, listSuppressions, parseSuppressionCursor, SuppressionRow } from '../../db/suppressions';
import { lookupContacts } from '../../db/contactQueries';
import { audited, requestAuditor } from '../../services/audit';
import type { Knex } from 'knex';

/** The audit log names no address (docs/privacy.md): how many, and which contacts they are, if any. */
const MAX_NAMED = 20;
async function contactIdsOf(trx: Knex, projectId: string, emails: string[]): Promise<string[]> {
  return emails.length ? (await lookupContacts(trx, projectId, emails.slice(0, MAX_NAMED))).found.map((c) => c.id) : [];
}

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
    audit: 'suppression.add',
    role: 'suppressions.manage',
    summary: 'Add addresses (MANUAL) to the suppression list; those already on it are left as they are',
    body: SuppressionCreate,
    responses: {
      200: { description: 'every address was already on the list', schema: SuppressionAdded },
      201: { description: 'at least one address was added', schema: SuppressionAdded },
    },
    async handler(ctx, { body, project }) {
      // Also when every address was already there: the entry records who asked, as workflow.enable does.
      const { r } = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        async (trx) => {
          const r = await addSuppressions(trx, project.id, body.emails, body.reason, body.expiresAt ?? null);
          return { r, contactIds: await contactIdsOf(trx, project.id, r.added) };
        },
        ({ r, contactIds }) => ({
          projectId: project.id,
          action: 'suppression.add',
          target: { type: 'suppression', id: null },
          details: { added: r.added.length, existing: r.existing.length, reason: body.reason, expiresAt: body.expiresAt ?? null, contactIds },
        }),
      );
      ctx.status = r.added.length ? 201 : 200;
      return r;
    },
  }),
  route({
    ...common,
    method: 'delete',
    path: '/suppressions/:email',
    audit: 'suppression.remove',
    role: 'suppressions.manage',
    responses: { 204: { description: 'deleted' } },
    summary: 'Remove an address from the suppression list; mail to it is handed over again',
    params: SuppressionParams,
    async handler(ctx, { params, project }) {
      const removed = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        async (trx) => (await deleteSuppression(trx, project.id, params.email)) && { contactIds: await contactIdsOf(trx, project.id, [params.email]) },
        (r) =>
          r && {
            projectId: project.id,
            action: 'suppression.remove',
            target: { type: 'suppression', id: null },
            details: { removed: 1, contactIds: r.contactIds },
          },
      );
      if (!removed) throw notFound('Suppression');
      ctx.status = 204;
    },
  }),
];
