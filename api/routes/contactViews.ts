import { route } from '../route';
import type { AppContext } from '../context';
import { audited, changedKeys, requestAuditor } from '../../services/audit';
import { notFound, validationError } from '../errors';
import { IdParams } from '../schemas/common';
import { ContactViewCreate, ContactViewListOut, ContactViewOut, ContactViewUpdate } from '../schemas/contactViews';
import { filterErrorToFieldError } from '../schemas/filters';
import { presentContactView } from '../presenters/contactViews';
import { createContactView, deleteContactView, listContactViews, updateContactView } from '../../db/contactViews';
import { compileFilter, FilterError, loadFieldTypes } from '../../db/filters';

const common = { auth: 'secret', tag: 'contacts', resource: 'ContactView' } as const;

/** A view's filter must compile against the project's fields now, as a segment's condition must. */
async function assertFilterCompiles(ctx: AppContext, projectId: string, filter: unknown) {
  if (filter === null || filter === undefined) return;
  try {
    compileFilter(filter, { fieldTypes: await loadFieldTypes(ctx.deps.knex, projectId) });
  } catch (err) {
    if (err instanceof FilterError) throw validationError([filterErrorToFieldError(err, 'filter')], "The filter does not fit the project's fields");
    throw err;
  }
}

export default [
  route({
    ...common,
    method: 'get',
    path: '/contact-views',
    scope: 'contacts:read',
    summary: "The project's saved views of the contacts list, by name",
    responses: { 200: { description: 'every view', schema: ContactViewListOut } },
    async handler(ctx, { project }) {
      return { data: (await listContactViews(ctx.deps.knex, project.id)).map(presentContactView) };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/contact-views',
    audit: 'contact_view.create',
    scope: 'contacts:write',
    summary: 'Save a view of the contacts list (filter, search, columns) for the whole project; 409 when the name is taken',
    body: ContactViewCreate,
    responses: { 201: { description: 'the view', schema: ContactViewOut } },
    async handler(ctx, { body, project }) {
      await assertFilterCompiles(ctx, project.id, body.filter);
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => createContactView(trx, project.id, body),
        (v) => ({ projectId: project.id, action: 'contact_view.create', target: { type: 'contact_view', id: v.id }, details: { name: v.name } }),
      );
      ctx.status = 201;
      return presentContactView(row);
    },
  }),
  route({
    ...common,
    method: 'patch',
    path: '/contact-views/:id',
    audit: 'contact_view.update',
    scope: 'contacts:write',
    summary: "Change a view's name, filter, search or columns",
    params: IdParams,
    body: ContactViewUpdate,
    responses: { 200: { description: 'the view', schema: ContactViewOut } },
    async handler(ctx, { params, body, project }) {
      await assertFilterCompiles(ctx, project.id, body.filter);
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => updateContactView(trx, project.id, params.id, body),
        (v) =>
          v && { projectId: project.id, action: 'contact_view.update', target: { type: 'contact_view', id: v.id }, details: { changed: changedKeys(body) } },
      );
      if (!row) throw notFound('Contact view');
      return presentContactView(row);
    },
  }),
  route({
    ...common,
    method: 'delete',
    path: '/contact-views/:id',
    audit: 'contact_view.delete',
    scope: 'contacts:write',
    summary: 'Delete a saved view (the contacts stay as they are)',
    params: IdParams,
    responses: { 204: { description: 'deleted' } },
    async handler(ctx, { params, project }) {
      const deleted = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => deleteContactView(trx, project.id, params.id),
        (ok) => ok && { projectId: project.id, action: 'contact_view.delete', target: { type: 'contact_view', id: params.id } },
      );
      if (!deleted) throw notFound('Contact view');
      ctx.status = 204;
    },
  }),
];
