import { senderCheckWaived } from '../../lib/config';
import { route } from '../route';
import { referencePaths } from '../../services/stepReferences';
import type { AppContext } from '../context';
import { conflict, notFound } from '../errors';
import { IdParams } from '../schemas/common';
import { TemplateCreate, TemplateListQuery, TemplateOut, TemplatePage, TemplateUpdate, TemplateUsage } from '../schemas/templates';
import { assertVerifiedSender } from '../../services/senderCheck';
import {
  createTemplate,
  deleteTemplate,
  duplicateTemplate,
  findTemplate,
  listTemplates,
  templateUsage,
  updateTemplate,
} from '../../db/templates';
import { presentTemplate } from '../presenters/templates';

const projectId = (ctx: AppContext) => ctx.state.project!.id;

const common = { auth: 'secret', tag: 'templates', validationErrors: 'flat' } as const;

export default [
  route({
    ...common,
    method: 'get',
    path: '/templates',
    summary: 'List templates (page pagination, type filter, search on name, description and subject)',
    query: TemplateListQuery,
    responses: { 200: { description: 'a page of templates', schema: TemplatePage } },
    async handler(ctx, { query }) {
      const { page, pageSize } = query;
      const { rows, total, totalPages } = await listTemplates(ctx.deps.knex, projectId(ctx), query);
      ctx.body = { data: rows.map(presentTemplate), total, page, pageSize, totalPages };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/templates',
    summary: 'Create a template; subject and body must parse as Liquid, the sender domain must be verified',
    body: TemplateCreate,
    responses: {
      201: { description: 'created', schema: TemplateOut },
      403: { description: 'sender domain not verified (code INTERNAL_SERVER_ERROR)' },
    },
    async handler(ctx, { body }) {
      await assertVerifiedSender(ctx.deps.knex, projectId(ctx), body.from, senderCheckWaived(ctx.deps.config));
      ctx.status = 201;
      ctx.body = presentTemplate(await createTemplate(ctx.deps.knex, projectId(ctx), body));
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/templates/:id',
    summary: 'One template',
    params: IdParams,
    responses: { 200: { description: 'the template', schema: TemplateOut } },
    async handler(ctx, { params }) {
      const row = await findTemplate(ctx.deps.knex, projectId(ctx), params.id);
      if (!row) throw notFound('Template');
      ctx.body = presentTemplate(row);
    },
  }),
  route({
    ...common,
    method: 'patch',
    path: '/templates/:id',
    summary: 'Update some fields of a template (same rules as create)',
    params: IdParams,
    body: TemplateUpdate,
    responses: { 200: { description: 'the updated template', schema: TemplateOut } },
    async handler(ctx, { params, body }) {
      if (!(await findTemplate(ctx.deps.knex, projectId(ctx), params.id))) throw notFound('Template');
      if (body.from !== undefined) await assertVerifiedSender(ctx.deps.knex, projectId(ctx), body.from, senderCheckWaived(ctx.deps.config));
      const row = await updateTemplate(ctx.deps.knex, projectId(ctx), params.id, body);
      if (!row) throw notFound('Template');
      ctx.body = presentTemplate(row);
    },
  }),
  route({
    ...common,
    method: 'delete',
    path: '/templates/:id',
    summary: 'Delete a template (emails already sent from it keep their content)',
    params: IdParams,
    responses: { 204: { description: 'deleted' } },
    async handler(ctx, { params }) {
      const outcome = await deleteTemplate(ctx.deps.knex, projectId(ctx), params.id, referencePaths('template', ctx.deps.steps));
      if (!outcome) throw notFound('Template');
      // A SEND_EMAIL step naming a deleted template could never send again: refuse, and say where it is used.
      if ('usedBy' in outcome) {
        throw conflict('The template is used by workflow steps; change or delete those steps first', { details: { workflows: outcome.usedBy } });
      }
      ctx.status = 204;
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/templates/:id/duplicate',
    summary: 'Copy a template under a new id, named "<name> (copy)"',
    params: IdParams,
    responses: { 201: { description: 'the new template', schema: TemplateOut } },
    async handler(ctx, { params }) {
      const row = await duplicateTemplate(ctx.deps.knex, projectId(ctx), params.id);
      if (!row) throw notFound('Template');
      ctx.status = 201;
      ctx.body = presentTemplate(row);
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/templates/:id/usage',
    summary: 'Campaigns and workflow steps that reference the template',
    params: IdParams,
    responses: { 200: { description: 'references', schema: TemplateUsage } },
    async handler(ctx, { params }) {
      if (!(await findTemplate(ctx.deps.knex, projectId(ctx), params.id))) throw notFound('Template');
      ctx.body = await templateUsage(ctx.deps.knex, projectId(ctx), params.id, referencePaths('template', ctx.deps.steps));
    },
  }),
];
