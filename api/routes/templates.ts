import { senderCheckWaived } from '../../lib/config';
import { route } from '../route';
import { audited, changedKeys, requestAuditor } from '../../services/audit';
import { referencePaths } from '../../services/stepReferences';
import { conflict, FlatError, notFound, validationError, type FieldError } from '../errors';
import { IdParams } from '../schemas/common';
import {
  PublishIn,
  StarterList,
  TemplateContentIn,
  TemplateContentOut,
  TemplateCreate,
  TemplateListQuery,
  TemplateVersionList,
  TemplateVersionOut,
  VersionParams,
  TemplateOut,
  TemplatePage,
  TemplatePreviewIn,
  TemplatePreviewOut,
  TemplateUpdate,
  TemplateUsage,
  TemplateTestIn,
  TemplateTestOut,
} from '../schemas/templates';
import { assertVerifiedSender } from '../../services/senderCheck';
import {
  createTemplate,
  deleteTemplate,
  duplicateTemplate,
  findTemplate,
  findVersion,
  listTemplates,
  listVersions,
  publishContent,
  publishedContent,
  saveDraft,
  templateUsage,
  updateTemplate,
} from '../../db/templates';
import { presentContent, presentTemplate, presentVersion, presentVersionMeta } from '../presenters/templates';
import { compileContent, compileForProject, type ContentInput, contentInput } from '../../services/templateContent';
import { DocumentInvalid } from '../../services/emailCompiler';
import { getBrand } from '../../db/brands';
import { registeredFields } from '../../db/fields';
import { runChecks } from '../../lib/templateChecks';
import { chooseVariant, sendableContent, type TemplateContent } from '../../lib/templateContent';
import { sendEmails } from '../../services/send';
import { STARTERS } from '../../lib/starters';
import type { AppContext } from '../context';
import { requestLanguage } from '../language';
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

/** Compiles content for a template route: a document that does not validate is a 422 naming its block, in the routes' flat style. */
async function compiled(ctx: AppContext, projectId: string, input: ContentInput) {
  try {
    return await compileForProject(ctx.deps.knex, projectId, input);
  } catch (err) {
    if (err instanceof DocumentInvalid) throw new FlatError(422, err.message);
    throw err;
  }
}

const CONTENT_KEYS = ['subject', 'body', 'text', 'editor', 'document', 'variants'] as const;

/** Who a version is by: the signed-in user, or null for an API key. */
const author = (ctx: AppContext): string | null => (ctx.state as { user?: { id: string } }).user?.id ?? null;

async function loadTemplate(ctx: AppContext, projectId: string, id: string) {
  const row = await findTemplate(ctx.deps.knex, projectId, id);
  if (!row) throw notFound('Template');
  return row;
}

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
      let variables: Record<string, unknown> = {};
      if (body.contactId !== undefined) {
        const contact = await findContact(ctx.deps.knex, project.id, body.contactId);
        if (!contact) throw notFound('Contact');
        variables = { ...(contact.data ?? {}), ...identityVariables(contact), ...linksFor(ctx.deps.config, contact.project_id, contact.id) };
      }
      variables = { ...variables, ...(body.data ?? {}) };
      // The variant a contact with this locale gets (the preview's own locale wins over the contact's).
      const locale = body.variants ? chooseVariant(Object.keys(body.variants), body.locale ?? variables.locale) : null;
      const source = locale ? body.variants![locale] : body;
      const editor = body.editor ?? (source.document ? 'blocks' : 'html');
      let html = source.body;
      let text = source.text ?? null;
      if (editor === 'blocks') {
        if (!source.document) throw validationError([{ field: 'document', code: 'custom', message: 'Document is required for a blocks template' }]);
        const out = await compileContent({ editor, subject: source.subject, document: source.document, text }, await getBrand(ctx.deps.knex, project.id));
        html = out.body;
        text = text ?? out.compiledText;
      }
      if (html === undefined) throw validationError([{ field: 'body', code: 'custom', message: 'Body is required' }]);
      const parts = { subject: source.subject, body: html, text };
      const problems = templateProblems(parts);
      if (problems.length) throw validationError(problems, `The template does not parse: ${problems[0].field}: ${problems[0].message}`);
      const fields = (await registeredFields(ctx.deps.knex, project.id)).map((f) => f.key);
      // The editor shows the checks' messages as they are, in the request's language: caches must key on it.
      ctx.vary('Accept-Language');
      const checks = runChecks(
        {
          subject: source.subject,
          html,
          text: source.text,
          document: editor === 'blocks' ? source.document : null,
          type: body.type ?? 'MARKETING',
          knownVariables: [...fields, ...Object.keys(variables)],
        },
        requestLanguage(ctx),
      );
      try {
        const rendered = await renderTemplate(parts, variables);
        return { subject: rendered.subject, html: rendered.body, text: rendered.text, locale, checks };
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
    method: 'get',
    path: '/templates/starters',
    summary: 'Block documents to start a template from (welcome, newsletter, product update, receipt, password reset, event invitation)',
    responses: { 200: { description: 'the starters', schema: StarterList } },
    handler: () => ({ data: STARTERS }),
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
      const { subject, editor, body: html, document, text, variants, ...meta } = body;
      const content = await compiled(ctx, project.id, { subject, editor, body: html, document, text, variants });
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => createTemplate(trx, project.id, meta, content, author(ctx)),
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
      const current = await loadTemplate(ctx, project.id, params.id);
      if (body.from !== undefined) await assertVerifiedSender(ctx.deps.knex, project.id, body.from, senderCheckWaived(ctx.deps.config));
      const { subject, editor, body: html, document, text, variants, ...meta } = body;
      let content: TemplateContent | undefined;
      // Content changes publish at once, as a new version (the route's behaviour before versions existed).
      if (CONTENT_KEYS.some((k) => body[k] !== undefined)) {
        const base = contentInput(publishedContent(current));
        const nextEditor = editor ?? base.editor;
        if (nextEditor === 'blocks' && html !== undefined)
          throw new FlatError(400, 'Body is compiled from the document for a blocks template: send document, not body');
        const merged: ContentInput = {
          subject: subject ?? base.subject,
          editor: nextEditor,
          // Switching editor drops the other editor's source.
          body: nextEditor === 'html' ? (html ?? (base.editor === 'html' ? base.body : undefined)) : undefined,
          document: nextEditor === 'blocks' ? (document ?? (base.editor === 'blocks' ? base.document : undefined)) : undefined,
          text: text === undefined ? base.text : text,
          variants: variants === undefined ? base.variants : variants,
        };
        if (nextEditor === 'html' && !merged.body) throw new FlatError(400, 'Body is required');
        if (nextEditor === 'blocks' && !merged.document) throw new FlatError(400, 'Document is required for a blocks template');
        content = await compiled(ctx, project.id, merged);
      }
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => updateTemplate(trx, project.id, params.id, meta, content, author(ctx)),
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
  route({
    ...common,
    method: 'get',
    path: '/templates/:id/draft',
    summary: 'The draft content (or the published content when no draft is saved)',
    params: IdParams,
    responses: { 200: { description: 'the content', schema: TemplateContentOut } },
    async handler(ctx, { params, project }) {
      const row = await loadTemplate(ctx, project.id, params.id);
      return row.draft ? presentContent(row.draft, true, row.draft_updated_at) : presentContent(publishedContent(row), false, null);
    },
  }),
  route({
    ...common,
    method: 'put',
    path: '/templates/:id/draft',
    audit: 'template.update',
    summary: 'Save the draft (validated and compiled; senders keep the published version until it is published)',
    params: IdParams,
    body: TemplateContentIn,
    responses: {
      200: { description: 'the saved draft', schema: TemplateContentOut },
      422: { description: 'the document does not validate (the message names the block: document.blocks.3.src)' },
    },
    async handler(ctx, { params, body, project }) {
      await loadTemplate(ctx, project.id, params.id);
      const content = await compiled(ctx, project.id, body);
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => saveDraft(trx, project.id, params.id, content),
        (t) => t && { projectId: project.id, action: 'template.update', target: { type: 'template', id: t.id }, details: { changed: ['draft'] } },
      );
      if (!row) throw notFound('Template');
      return presentContent(content, true, row.draft_updated_at);
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/templates/:id/publish',
    audit: 'template.publish',
    summary: 'Publish the draft as the next version (compiled again with the current brand); senders use it from now on',
    params: IdParams,
    body: PublishIn,
    responses: {
      201: { description: 'the new version', schema: TemplateVersionOut },
      409: { description: 'there is no draft to publish' },
    },
    async handler(ctx, { params, body, project }) {
      const current = await loadTemplate(ctx, project.id, params.id);
      if (!current.draft) throw conflict('The template has no draft to publish');
      const content = await compiled(ctx, project.id, contentInput(current.draft));
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => publishContent(trx, project.id, params.id, content, author(ctx), body.note ?? null),
        (t) => t && { projectId: project.id, action: 'template.publish', target: { type: 'template', id: t.id }, details: { version: t.published_version } },
      );
      if (!row) throw notFound('Template');
      const version = await findVersion(ctx.deps.knex, project.id, row.id, row.published_version);
      ctx.status = 201;
      return presentVersion(version!);
    },
  }),
  route({
    ...common,
    // The "Send test" form shows field errors (`to`) from the envelope.
    validationErrors: 'envelope',
    // It sends email: an API key needs the send scope, as for POST /v1/send.
    scope: 'send',
    method: 'post',
    path: '/templates/:id/test',
    summary: "Send one test of the draft (the published content when no draft is saved) to an address, the signed-in person's by default",
    params: IdParams,
    body: TemplateTestIn,
    responses: {
      201: { description: 'queued, like a POST /v1/send', schema: TemplateTestOut },
      403: { description: 'sender domain not verified (code INTERNAL_SERVER_ERROR)' },
      422: { description: 'VALIDATION_ERROR: no `to` with an API key, or a part does not render' },
    },
    async handler(ctx, { params, body, project }) {
      const row = await loadTemplate(ctx, project.id, params.id);
      const to = body.to ?? ctx.state.user?.email;
      if (!to) throw validationError([{ field: 'to', code: 'custom', message: 'To is required with an API key' }]);
      // The draft as saved (compiled when it was saved), in the variant a contact with this locale gets.
      const content = row.draft ?? publishedContent(row);
      const parts = sendableContent(content, body.locale ?? body.data?.locale);
      // The preview's variables are for this send only: `persistent: false` keeps them off the contact.
      const data = Object.fromEntries(Object.entries(body.data ?? {}).map(([k, value]) => [k, { value, persistent: false }]));
      const [sent] = await sendEmails(ctx.deps, project.id, {
        to,
        template: row.id,
        subject: parts.subject,
        body: parts.body,
        ...(parts.text === null ? {} : { text: parts.text }),
        data,
      });
      ctx.status = 201;
      return { email: sent.email, to, version: row.draft ? ('draft' as const) : ('published' as const), locale: parts.locale };
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/templates/:id/versions',
    summary: 'Published versions, newest first',
    params: IdParams,
    responses: { 200: { description: 'the versions', schema: TemplateVersionList } },
    async handler(ctx, { params, project }) {
      await loadTemplate(ctx, project.id, params.id);
      return { data: (await listVersions(ctx.deps.knex, project.id, params.id)).map(presentVersionMeta) };
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/templates/:id/versions/:n',
    summary: "One published version's content",
    params: VersionParams,
    responses: { 200: { description: 'the version', schema: TemplateVersionOut } },
    async handler(ctx, { params, project }) {
      const version = await findVersion(ctx.deps.knex, project.id, params.id, params.n);
      if (!version) throw notFound('Version');
      return presentVersion(version);
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/templates/:id/versions/:n/restore',
    audit: 'template.update',
    summary: 'Copy a published version into the draft (publish it to send it)',
    params: VersionParams,
    responses: { 200: { description: 'the draft now', schema: TemplateContentOut } },
    async handler(ctx, { params, project }) {
      await loadTemplate(ctx, project.id, params.id);
      const version = await findVersion(ctx.deps.knex, project.id, params.id, params.n);
      if (!version) throw notFound('Version');
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => saveDraft(trx, project.id, params.id, version.content),
        (t) =>
          t && {
            projectId: project.id,
            action: 'template.update',
            target: { type: 'template', id: t.id },
            details: { changed: ['draft'], restored: params.n },
          },
      );
      if (!row) throw notFound('Template');
      return presentContent(version.content, true, row.draft_updated_at);
    },
  }),
];
