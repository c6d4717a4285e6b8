import { route } from '../route';
import type { AppContext } from '../context';
import { forbidden, notFound } from '../errors';
import { IdParams } from '../schemas/common';
import { ProjectCreate, ProjectOut, ProjectUpdate } from '../schemas/projects';
import { createProject, membership, presentProject, projectsOfUser, ProjectRow, Role, rotateKeys } from '../../db/projects';
import { presentUser } from '../../db/users';

/** A project the signed-in user belongs to with one of `roles`; others look missing (404), wrong role is 403. */
async function ownProject(ctx: AppContext, id: string, roles: Role[]) {
  const user = ctx.state.user!;
  const role = await membership(ctx.deps.knex, id, user.id);
  if (!role) throw notFound('Project');
  if (!roles.includes(role)) throw forbidden(`Your role (${role}) may not do this`);
  return role;
}

export default [
  route({
    method: 'get',
    path: '/users/@me',
    auth: 'session',
    tag: 'users',
    summary: 'The signed-in user',
    handler(ctx) {
      ctx.body = presentUser(ctx.state.user!);
    },
  }),
  route({
    method: 'get',
    path: '/users/@me/projects',
    auth: 'session',
    tag: 'users',
    summary: "The signed-in user's projects (keys masked)",
    async handler(ctx) {
      const rows = await projectsOfUser(ctx.deps.knex, ctx.state.user!.id);
      ctx.body = rows.map((r: ProjectRow & { role: Role }) => ({ ...presentProject(r), role: r.role }));
    },
  }),
  route({
    method: 'post',
    path: '/users/@me/projects',
    auth: 'session',
    tag: 'users',
    summary: 'Create a project; the response is the only time its keys are shown in full',
    body: ProjectCreate,
    responses: { 201: { description: 'created', schema: ProjectOut } },
    async handler(ctx, { body }) {
      const { row, keys } = await createProject(ctx.deps.knex, ctx.state.user!.id, body.name);
      ctx.status = 201;
      ctx.body = presentProject(row, keys);
    },
  }),
  route({
    method: 'patch',
    path: '/users/@me/projects/:id',
    auth: 'session',
    tag: 'users',
    summary: 'Update project settings',
    params: IdParams,
    resource: 'Project',
    body: ProjectUpdate,
    async handler(ctx, { params, body }) {
      await ownProject(ctx, params.id, ['OWNER', 'ADMIN']);
      const [row] = await ctx.deps.knex<ProjectRow>('projects')
        .where({ id: params.id })
        .update({ ...body, updated_at: ctx.deps.knex.fn.now() as any })
        .returning('*');
      ctx.body = presentProject(row);
    },
  }),
  route({
    method: 'delete',
    path: '/users/@me/projects/:id',
    auth: 'session',
    tag: 'users',
    summary: 'Delete a project and all its data (owner only)',
    params: IdParams,
    resource: 'Project',
    async handler(ctx, { params }) {
      await ownProject(ctx, params.id, ['OWNER']);
      await ctx.deps.knex('projects').where({ id: params.id }).del();
      ctx.status = 204;
    },
  }),
  route({
    method: 'post',
    path: '/users/@me/projects/:id/regenerate-keys',
    auth: 'session',
    tag: 'users',
    summary: 'Rotate both keys at once; the old pair stops working immediately',
    params: IdParams,
    resource: 'Project',
    async handler(ctx, { params }) {
      await ownProject(ctx, params.id, ['OWNER', 'ADMIN']);
      const rotated = await rotateKeys(ctx.deps.knex, params.id);
      if (!rotated) throw notFound('Project');
      ctx.body = presentProject(rotated.row, rotated.keys);
    },
  }),
];
