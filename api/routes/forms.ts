import { route } from '../route';
import { audited, changedKeys, requestAuditor } from '../../services/audit';
import { checkFormInput } from '../../services/forms';
import { notFound } from '../errors';
import { IdParams } from '../schemas/common';
import { FormCreate, FormListOut, FormOut, FormUpdate } from '../schemas/forms';
import { createForm, deleteForm, findForm, listForms, updateForm } from '../../db/forms';
import { presentForm } from '../presenters/forms';

/** Signup forms (docs/forms.md): their settings; the hosted page and its submissions are api/routes/formPages.ts. */

const common = { auth: 'secret', tag: 'forms', resource: 'Form' } as const;

export default [
  route({
    ...common,
    method: 'get',
    path: '/forms',
    summary: "The project's signup forms, oldest first",
    responses: { 200: { description: 'every form', schema: FormListOut } },
    async handler(ctx, { project }) {
      return { data: (await listForms(ctx.deps.knex, project.id)).map((f) => presentForm(ctx.deps.config, f)) };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/forms',
    audit: 'form.create',
    summary: 'Create a signup form: its fields (after the implicit email), topics, double opt-in and what follows a submission',
    body: FormCreate,
    responses: { 201: { description: 'the form, with its public URL and embed snippet', schema: FormOut } },
    async handler(ctx, { body, project }) {
      await checkFormInput(ctx.deps.knex, project.id, body);
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => createForm(trx, project.id, body),
        (f) => ({ projectId: project.id, action: 'form.create', target: { type: 'form', id: f.id }, details: { name: f.name } }),
      );
      ctx.status = 201;
      return presentForm(ctx.deps.config, row);
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/forms/:id',
    summary: 'One signup form',
    params: IdParams,
    responses: { 200: { description: 'the form', schema: FormOut } },
    async handler(ctx, { params, project }) {
      const row = await findForm(ctx.deps.knex, project.id, params.id);
      if (!row) throw notFound('Form');
      return presentForm(ctx.deps.config, row);
    },
  }),
  route({
    ...common,
    method: 'patch',
    path: '/forms/:id',
    audit: 'form.update',
    summary: "Change a signup form's settings; its URL and embed snippet stay the same",
    params: IdParams,
    body: FormUpdate,
    responses: { 200: { description: 'the form', schema: FormOut } },
    async handler(ctx, { params, body, project }) {
      if (!(await findForm(ctx.deps.knex, project.id, params.id))) throw notFound('Form');
      await checkFormInput(ctx.deps.knex, project.id, body);
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => updateForm(trx, project.id, params.id, body),
        (f) => f && { projectId: project.id, action: 'form.update', target: { type: 'form', id: f.id }, details: { changed: changedKeys(body) } },
      );
      if (!row) throw notFound('Form');
      return presentForm(ctx.deps.config, row);
    },
  }),
  route({
    ...common,
    method: 'delete',
    path: '/forms/:id',
    audit: 'form.delete',
    summary: 'Delete a signup form: its page and embedded copies stop taking submissions (404); contacts it made stay',
    params: IdParams,
    responses: { 204: { description: 'deleted' } },
    async handler(ctx, { params, project }) {
      const deleted = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => deleteForm(trx, project.id, params.id),
        (ok) => ok && { projectId: project.id, action: 'form.delete', target: { type: 'form', id: params.id } },
      );
      if (!deleted) throw notFound('Form');
      ctx.status = 204;
    },
  }),
];
