import { senderCheckWaived } from '../../lib/config';
import { route } from '../route';
import { audited, changedKeys, requestAuditor } from '../../services/audit';
import { referencePaths } from '../../services/stepReferences';
import { conflict, notFound, validationError, type FieldError } from '../errors';
import { IdParams } from '../schemas/common';
import {
  TemplateCreate,
  TemplateListQuery,
  TemplateOut,
  TemplatePage,
  TemplatePreviewIn,
  TemplatePreviewOut,
  TemplateUpdate,
  TemplateUsage,
} from '../schemas/templates';
import { assertVerifiedSender } from '../../services/senderCheck';
import { createTemplate, deleteTemplate, duplicateTemplate, findTemplate, listTemplates, templateUsage, updateTemplate } from '../../db/templates';
import { presentTemplate } from '../presenters/templates';
import { checkTemplate, RenderError, renderTemplate } from '../../services/render';
import { identityVariables } from '../../lib/contactData';
import { findContact } from '../../db/contactReaders';
import { linksFor } from '../../lib/unsubscribe';

const PARTS = ['subject', 'body', 'text'] as const;

/** A Liquid problem as the 422 envelope: one field error per part that does not parse, or the part whose render failed. */
function templateProblems(sources: Partial<Record<(typeof PARTS)[number], string | null>>): FieldError[] {
  return PARTS.flatMap((field) => {
    const source = sources[field];
    const problem = source == null ? null : checkTemplate(source);
    return problem ? [{ field, code: 'invalid_template', message: problem }] : [];
  });
}

const common = { auth: 'secret', scope: 'templates', tag: 'templates', validationErrors: 'flat' } as const;

export default [
  route({
    ...common,
    // The editor shows field errors from the envelope, not the templates' flat `{ error }`.
    validationErrors: 'envelope',
    method: 'post',
    path: '/templates/preview',
    summary: 'Render a subject, HTML body and text part as a send would (the same Liquid renderer), without storing or sending anything',
    body: TemplatePreviewIn,
    responses: {
      200: { description: 'the rendered message', schema: TemplatePreviewOut },
      404: { description: '`contactId` names no contact of the project' },
      422: {
        description: 'VALIDATION_ERROR: a part is not valid Liquid (`errors[].field` names it; the message has the line and column) or its render failed',
      },
    },
    async handler(ctx, { body, project }) {
      const problems = templateProblems(body);
      if (problems.length) throw validationError(problems, `The template does not parse: ${problems[0].field}: ${problems[0].message}`);
      let variables: Record<string, unknown> = {};
      if (body.contactId !== undefined) {
        const contact = await findContact(ctx.deps.knex, project.id, body.contactId);
        if (!contact) throw notFound('Contact');
        variables = { ...(contact.data ?? {}), ...identityVariables(contact), ...linksFor(ctx.deps.config, contact.project_id, contact.id) };
      }
      try {
        const rendered = await renderTemplate(body, { ...variables, ...(body.data ?? {}) });
        return { subject: rendered.subject, html: rendered.body, text: rendered.text };
      } catch (err) {
        if (!(err instanceof RenderError)) throw err;
        // renderTemplate names the part first ("body: …").
        const field = /^(subject|body|text): /.exec(err.message)?.[1] ?? '(root)';
        throw validationError(
          [{ field, code: 'render_failed', message: err.message.replace(/^(subject|body|text): /, '') }],
          `The template did not render: ${err.message}`,
        );
      }
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/templates',
    summary: 'List templates (page pagination, type filter, search on name, description and subject)',
    query: TemplateListQuery,
    responses: { 200: { description: 'a page of templates', schema: TemplatePage } },
    async handler(ctx, { query, project }) {
      const { page, pageSize } = query;
      const { rows, total, totalPages } = await listTemplates(ctx.deps.knex, project.id, query);
      return { data: rows.map(presentTemplate), total, page, pageSize, totalPages };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/templates',
    audit: 'template.create',
    summary: 'Create a template; subject and body must parse as Liquid, the sender domain must be verified',
    body: TemplateCreate,
    responses: {
      201: { description: 'created', schema: TemplateOut },
      403: { description: 'sender domain not verified (code INTERNAL_SERVER_ERROR)' },
    },
    async handler(ctx, { body, project }) {
      await assertVerifiedSender(ctx.deps.knex, project.id, body.from, senderCheckWaived(ctx.deps.config));
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => createTemplate(trx, project.id, body),
        (t) => ({ projectId: project.id, action: 'template.create', target: { type: 'template', id: t.id }, details: { name: t.name } }),
      );
      ctx.status = 201;
      return presentTemplate(row);
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/templates/:id',
    summary: 'One template',
    params: IdParams,
    responses: { 200: { description: 'the template', schema: TemplateOut } },
    async handler(ctx, { params, project }) {
      const row = await findTemplate(ctx.deps.knex, project.id, params.id);
      if (!row) throw notFound('Template');
      return presentTemplate(row);
    },
  }),
  route({
    ...common,
    method: 'patch',
    path: '/templates/:id',
    audit: 'template.update',
    summary: 'Update some fields of a template (same rules as create)',
    params: IdParams,
    body: TemplateUpdate,
    responses: { 200: { description: 'the updated template', schema: TemplateOut } },
    async handler(ctx, { params, body, project }) {
      if (!(await findTemplate(ctx.deps.knex, project.id, params.id))) throw notFound('Template');
      if (body.from !== undefined) await assertVerifiedSender(ctx.deps.knex, project.id, body.from, senderCheckWaived(ctx.deps.config));
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => updateTemplate(trx, project.id, params.id, body),
        (t) => t && { projectId: project.id, action: 'template.update', target: { type: 'template', id: t.id }, details: { changed: changedKeys(body) } },
      );
      if (!row) throw notFound('Template');
      return presentTemplate(row);
    },
  }),
  route({
    ...common,
    method: 'delete',
    path: '/templates/:id',
    audit: 'template.delete',
    summary: 'Delete a template (emails already sent from it keep their content)',
    params: IdParams,
    responses: { 204: { description: 'deleted' } },
    async handler(ctx, { params, project }) {
      const outcome = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => deleteTemplate(trx, project.id, params.id, referencePaths('template', ctx.deps.steps)),
        (r) => r && 'deleted' in r && { projectId: project.id, action: 'template.delete', target: { type: 'template', id: params.id } },
      );
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
    audit: 'template.create',
    summary: 'Copy a template under a new id, named "<name> (copy)"',
    params: IdParams,
    responses: { 201: { description: 'the new template', schema: TemplateOut } },
    async handler(ctx, { params, project }) {
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => duplicateTemplate(trx, project.id, params.id),
        (t) =>
          t && { projectId: project.id, action: 'template.create', target: { type: 'template', id: t.id }, details: { name: t.name, duplicateOf: params.id } },
      );
      if (!row) throw notFound('Template');
      ctx.status = 201;
      return presentTemplate(row);
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/templates/:id/usage',
    summary: 'Campaigns and workflow steps that reference the template',
    params: IdParams,
    responses: { 200: { description: 'references', schema: TemplateUsage } },
    async handler(ctx, { params, project }) {
      if (!(await findTemplate(ctx.deps.knex, project.id, params.id))) throw notFound('Template');
      return await templateUsage(ctx.deps.knex, project.id, params.id, referencePaths('template', ctx.deps.steps));
    },
  }),
];
