import { route } from '../route';
import { notFound } from '../errors';
import { SettingsOut, SettingsPatch } from '../schemas/settings';
import { sendingPolicy, updateSendingPolicy } from '../../db/sendingPolicy';

export default [
  route({
    method: 'get',
    path: '/settings',
    auth: 'secret',
    tag: 'settings',
    summary: "The project's sending policy: default time zone, quiet hours, frequency cap, send rate",
    responses: { 200: { description: 'sending policy', schema: SettingsOut } },
    async handler(ctx) {
      ctx.body = (await sendingPolicy(ctx.deps.knex, ctx.state.project!.id)) ?? notFoundProject();
    },
  }),
  route({
    method: 'patch',
    path: '/settings',
    auth: 'secret',
    tag: 'settings',
    summary: 'Change the sending policy; only the keys sent change, null turns quiet hours or the cap off and puts the send rate back to the default',
    body: SettingsPatch,
    responses: { 200: { description: 'sending policy', schema: SettingsOut } },
    async handler(ctx, { body }) {
      ctx.body = (await updateSendingPolicy(ctx.deps.knex, ctx.state.project!.id, body)) ?? notFoundProject();
    },
  }),
];

function notFoundProject(): never {
  throw notFound('Project');
}
