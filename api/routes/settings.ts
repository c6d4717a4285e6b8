import { route } from '../route';
import { notFound } from '../errors';
import { SettingsOut, SettingsPatch } from '../schemas/settings';
import { sendingPolicy, updateSendingPolicy } from '../../db/sendingPolicy';
import { trackingSettings, updateTrackingSettings } from '../../db/tracking';

export default [
  route({
    method: 'get',
    path: '/settings',
    auth: 'secret',
    tag: 'settings',
    summary: "The project's sending policy: default time zone, quiet hours, frequency cap, send rate, open and click tracking",
    responses: { 200: { description: 'sending policy', schema: SettingsOut } },
    async handler(ctx) {
      const policy = (await sendingPolicy(ctx.deps.knex, ctx.state.project!.id)) ?? notFoundProject();
      ctx.body = { ...policy, tracking: (await trackingSettings(ctx.deps.knex, ctx.state.project!.id)) ?? notFoundProject() };
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
    async handler(ctx, { body: { tracking, ...policyPatch } }) {
      const { knex } = ctx.deps;
      const projectId = ctx.state.project!.id;
      const policy = (await updateSendingPolicy(knex, projectId, policyPatch)) ?? notFoundProject();
      ctx.body = { ...policy, tracking: (await (tracking ? updateTrackingSettings(knex, projectId, tracking) : trackingSettings(knex, projectId))) ?? notFoundProject() };
    },
  }),
];

function notFoundProject(): never {
  throw notFound('Project');
}
